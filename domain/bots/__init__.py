"""Bot policies: pure functions from what a seat may know to a command."""
