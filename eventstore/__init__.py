"""Redis Streams event store, the event codec, snapshots, and the command handler."""
