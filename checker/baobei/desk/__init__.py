"""The rules desk (`baobei serve`): a local web app to set up a table, play and refuse moves, step through a
scenario or a game log, undo and redo, and export the session as a scenario file.

The desk's state is a document, a scenario's `table` block and its steps (timeline.py), replayed by the engine
into frames; the session (session.py) keeps the documents for undo and redo. The pages are drawn on the server
(pages.py, with the docs' SVG pictures of the table) and served by Starlette (app.py), offline: nothing is
fetched from another machine.
"""
