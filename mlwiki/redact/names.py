"""Names that say their value is a credential: `DB_PASSWORD`, `clientSecret`, `X-Api-Key`, ….

One rule for dict keys (`is_credential_name`) and for `NAME=value` text (`NAME_PATTERN`, used by
the RE2 rules): a name is a credential name when its last word is a credential word
(`CREDENTIAL_WORDS`), words being split at `_`, `-`, `.`, spaces and camelCase humps. So
`MYSQL_ROOT_PASSWORD`, `secretAccessKey` and `x-vault-token` are, and `token_count`,
`tokens_per_second` and `password_file` are not. Names that end in a credential word but never
hold one (tokenizer specials like `eos_token`, paging cursors like `next_page_token`) are listed
in `NOT_CREDENTIALS`. Placeholder values (`null`, `***`, `${VAR}`, a count like `3`…) are never counted as secrets.
"""

from __future__ import annotations

from functools import lru_cache

import re2

# Last words (or word pairs) of a credential name, lower case, words joined by `_`.
CREDENTIAL_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "access_key",
    "secret_key",
    "private_key",
    "private_key_id",
    "account_key",
    "accountkey",
    "shared_access_key",
    "sharedaccesskey",
    "app_key",
    "application_key",
    "auth_key",
    "master_key",
    "signing_key",
    "encryption_key",
    "license_key",
    "subscription_key",
    "client_secret",
    "credential",
    "credentials",
    "authorization",
    "cookie",
    "auth",
    "client_key_data",
    "client_certificate_data",
    "identitytoken",
    "registrytoken",
)
# Exact names (normalised) that end in a credential word but hold none.
NOT_CREDENTIALS = frozenset(
    {
        "page_token",
        "next_page_token",
        "nextpagetoken",
        "resume_token",
        "continuation_token",
        "sync_token",
        "cancel_token",
        "pad_token",
        "eos_token",
        "bos_token",
        "unk_token",
        "sep_token",
        "cls_token",
        "mask_token",
        "special_token",
        "max_token",
        "min_token",
    }
)
PLACEHOLDERS = re2.compile(
    r"(?i)^(?:|null|none|nil|true|false|undefined|n/?a|redacted|hidden|masked|changeme|"
    r"\d{1,5}|\*+|x+|\.+|-+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|%\(.*\)s|\[REDACTED:[a-z0-9_]+\])$"
)

# Words whose text forms have their own rules (`Authorization: Bearer …`, `Cookie: …`).
_NOT_IN_TEXT = frozenset({"auth", "authorization", "cookie"})
# RE2 for a credential name inside text: any name whose last word is a credential word.
_WORD_ALTERNATION = "|".join(
    sorted(
        {w.replace("_", r"[_\-.]?") for w in CREDENTIAL_WORDS if w not in _NOT_IN_TEXT}, key=len
    )[::-1]
)
NAME_PATTERN = rf"[A-Za-z0-9_.\-]*?(?i:{_WORD_ALTERNATION})"

_HUMP = re2.compile(r"([a-z0-9])([A-Z])")
_SEPARATORS = re2.compile(r"[\s\-.:/]+")


@lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """`X-Vault-Token` → `x_vault_token`, `secretAccessKey` → `secret_access_key`."""
    snake = _HUMP.sub(r"\1_\2", name)
    return _SEPARATORS.sub("_", snake).strip("_").lower()


@lru_cache(maxsize=4096)
def is_credential_name(name: str) -> bool:
    """Whether a value under this name is a credential (see the module docstring)."""
    normal = normalise(name)
    if not normal or normal in NOT_CREDENTIALS or len(normal) > 80:
        return False
    return (
        any(normal == word or normal.endswith("_" + word) for word in CREDENTIAL_WORDS)
        or normal.endswith(_FUSED)
        or (normal.endswith("token") and normal[:-5].isalpha() and normal[:-5] in _TOKEN_PREFIXES)
    )


# Credential words that end a name even glued to a prefix (`PGPASSWORD`, `MYSQLPASSWORD`,
# `clientapikey`): no ordinary word ends in them.
_FUSED = ("password", "passwd", "passphrase", "apikey", "accesskey", "secretkey", "privatekey")


def looks_secret(value: str) -> bool:
    """A value that looks generated: 16+ characters mixing letters and digits, no spaces."""
    return (
        len(value) >= 16
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not value.startswith(("/", "http", "gs://"))
    )


# Single-word names ending in "token" (`authtoken`, `apitoken`) that credential tools print.
_TOKEN_PREFIXES = frozenset({"auth", "api", "access", "refresh", "bearer", "session", "id", "bot"})


def is_placeholder(value: str) -> bool:
    """A value that stands for no secret (`null`, `***`, `${DB_PASSWORD}`, a marker…)."""
    return bool(PLACEHOLDERS.match(value.strip()))
