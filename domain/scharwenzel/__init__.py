"""Scharwenzel (Fehmarn): a partnership trick-taking game for 4, 6 or 8 players."""
