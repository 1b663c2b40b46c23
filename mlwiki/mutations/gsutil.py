"""gsutil: its top-level options parsed as gsutil parses them, and an allowlist of reads.

Sources: https://cloud.google.com/storage/docs/gsutil/addlhelp/GlobalCommandLineOptions (the
top-level options) and https://cloud.google.com/storage/docs/gsutil/commands/COMMAND (each
command). gsutil reads its top-level options with Python's `getopt` (short options only here:
`-D`/`-DD`/`-d`/`-m`/`-q`/`-v` are switches, `-h`/`-i`/`-o`/`-u` take a value, combinable as
`-mq`), and the first other word is the command; a long option before the command asks. Reads:
ls, cat, du, stat, hash, version, help, and the `get`/`list` subcommands of the configuration
commands (`acl get`, `iam get`, `notification list`, …). cp, mv, rm, rsync, mb, rb, setmeta,
compose, rewrite, `… set`/`ch`, signurl (it grants access), perfdiag and test (they write
objects), config and update (they change gsutil) all ask, as does anything unknown.
"""

from __future__ import annotations

import getopt
from collections.abc import Sequence

from mlwiki.mutations.base import CHANGE, READ, SENSITIVE, UNKNOWN, Verdict, dynamic_word, verdict

TOP_LEVEL_OPTIONS = "dDvo:?h:i:u:mq"
READ_COMMANDS = {
    **dict.fromkeys(("ls", "dir", "list"), "ls"),
    "cat": "cat",
    "du": "du",
    "stat": "stat",
    "hash": "hash",
    **dict.fromkeys(("version", "ver"), "version"),
    **dict.fromkeys(("help", "man"), "help"),
    # Old single-word spellings of `CMD get`.
    **{name: name for name in ("getacl", "getdefacl", "getcors", "getlogging", "getversioning")},
    "getwebcfg": "getwebcfg",
}
# Commands whose first argument is a subcommand, and which subcommands only read.
SUBCOMMAND_READS = {
    **dict.fromkeys(
        (
            "acl", "defacl", "cors", "lifecycle", "logging", "versioning", "web", "iam", "label",
            "retention", "autoclass", "bucketpolicyonly", "ubla", "pap",
            "publicaccessprevention", "requesterpays", "rpo", "defstorageclass",
        ),
        frozenset({"get"}),
    ),
    **dict.fromkeys(("notification", "notifyconfig"), frozenset({"list"})),
    "hmac": frozenset({"list", "get"}),
}  # fmt: skip
SENSITIVE_COMMANDS = {
    **dict.fromkeys(
        ("signurl", "signedurl", "queryauth"),
        "creates a URL that grants anyone access to an object",
    ),
}


def classify(args: Sequence[str]) -> Verdict:
    """Judge gsutil's arguments (the words after `gsutil`)."""
    dynamic = dynamic_word("gsutil", args)
    if dynamic:
        return dynamic
    try:
        _, rest = getopt.getopt(list(args), TOP_LEVEL_OPTIONS)
    except getopt.GetoptError as error:
        return verdict(UNKNOWN, "gsutil", (), f"gsutil: {error}; not a known read")
    if not rest:
        return verdict(READ, "gsutil", (), "gsutil with no command only prints help")
    command, arguments = rest[0], rest[1:]
    if command in SENSITIVE_COMMANDS:
        return verdict(
            SENSITIVE, "gsutil", [command], f"gsutil {command} {SENSITIVE_COMMANDS[command]}"
        )
    if command in READ_COMMANDS:
        return verdict(READ, "gsutil", [command], f"gsutil {command} only reads")
    if command in SUBCOMMAND_READS:
        sub = arguments[0] if arguments else ""
        path = [command, sub] if sub else [command]
        if sub in SUBCOMMAND_READS[command]:
            return verdict(READ, "gsutil", path, f"gsutil {command} {sub} only reads")
        return verdict(
            CHANGE,
            "gsutil",
            path,
            f"gsutil {' '.join(path)} is not a known read (it may change settings)",
        )
    return verdict(
        CHANGE, "gsutil", [command], f"gsutil {command} is not a known read (it may change objects)"
    )
