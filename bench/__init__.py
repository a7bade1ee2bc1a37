"""stich's benchmark: ``python -m bench [--short]``. See README "Performance"."""
