"""Background work: bots' turns through RQ, the same command handler as humans."""
