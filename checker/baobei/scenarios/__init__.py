"""Scenarios: the scenario language, table setup, expectations, the runner, the pytest plugin."""
