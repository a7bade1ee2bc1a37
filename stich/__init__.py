"""stich: the runtime that ties the layers together (configuration, the private
Redis-compatible server, and the ``stich`` command line)."""
