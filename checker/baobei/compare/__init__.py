"""Comparing two versions of the rules: what a change does at the table (`baobei compare`)."""
