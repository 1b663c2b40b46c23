"""One module per `mlwiki` subcommand; each parses its options and calls library functions."""
