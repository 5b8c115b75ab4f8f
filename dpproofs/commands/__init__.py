"""The subcommands of ``dpproofs``; see :mod:`dpproofs.cli` for the protocol."""
