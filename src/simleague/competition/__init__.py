"""Whole competitions (issue 33): competition files, schedules, a results store, runners (a local
pool or a Ray cluster), rankings with judges' decisions, reports. World-agnostic: each world offers
one function that runs one trial from a plain description (a dict) and returns its result."""
