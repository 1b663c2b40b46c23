"""Our own RE2 rules: the secret formats detect-secrets does not know, and context it cannot see.

Each rule is (kind, RE2 pattern). Groups whose names start with `secret` mark the part replaced
(the rest is context kept for readability); without one the whole match is replaced. Earlier
rules win overlaps. RE2 runs in linear time, so a hostile log line cannot make redaction slow.

What the rules cover, in order:
- key material: PEM and PGP private-key blocks (whole, cut off, or their tail with the END line),
  base64 of a PEM private key (`LS0tLS1CRUdJTi…`, kubeconfig `client-key-data`), kubeconfig
  certificate data, GCP service-account `private_key_id`, Docker `auths` and
  `.dockerconfigjson`;
- vendor token formats by prefix (Google `ya29.`, `1//`, `GOCSPX-`, `AIza`, `GOOG…` HMAC ids, AWS
  key ids, GitHub, GitLab, Slack, Stripe, Hugging Face, OpenAI, Anthropic, npm, PyPI, SendGrid,
  Vault, Databricks, Twilio, Docker Hub and a dozen more);
- secrets by context: `Authorization:` headers, `scheme://user:PASSWORD@host`, cookies, signed and
  tokenised URLs (`sig=`, `X-Goog-Signature=`, `access_token=`…), webhook paths, `--password X`
  style flags, netrc and `wandb login` lines, Kaggle's `{"username", "key"}`, Kubernetes
  `{"name": "DB_PASSWORD", "value": …}`, and any `NAME=value` / `"name": "value"` whose name ends
  in a credential word (`DB_PASSWORD`, `clientSecret`, `X-Api-Key`, `AccountKey`…; the name list
  is `names.CREDENTIAL_WORDS`), and a credential word anywhere in a compound name when the value
  looks generated (`TF_TOKEN_app_terraform_io=…`, `aws configure set aws_secret_access_key …`);
- client arguments: `curl -u user:PW`, `sshpass -p PW`, `redis-cli -a PW`; DER private keys in
  bare base64 (PKCS#8, PKCS#1).
"""

from __future__ import annotations

from mlwiki.redact.names import NAME_PATTERN

_Q = r"\\?[\"']?"  # an optional quote, maybe escaped (JSON inside a JSON string)
_ASSIGN = r"\s*(?:=>|:=|=|:)\s*"
# A value: double-quoted (maybe escaped), single-quoted, or bare up to a delimiter.
_VALUE = (
    r"(?:\\?\"(?P<secret>[^\"\\\r\n]+)"
    r"|'(?P<secret2>[^'\r\n]+)'"
    r"|(?P<secret3>[^\s\"'\\,;&{}\[\]()<>|`]+))"
)
_PEM_LABEL = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"
# What may follow a BEGIN line inside a block: base64, line breaks (real or `\n`), armor headers.
_ARMOR = r"(?:[A-Za-z0-9+/=\s\\]|(?:Version|Comment|Hash|Charset|Proc-Type|DEK-Info): [^\r\n\\]*)"
# Where a name may start: not inside a longer word.
_NAME_START = r"(?:^|[^A-Za-z0-9_.\-])"

SECRET_RULES: tuple[tuple[str, str], ...] = (
    # --- key material ---------------------------------------------------------------------------
    (
        "private_key",
        rf"-----BEGIN {_PEM_LABEL}-----(?:(?s:.*?)-----END {_PEM_LABEL}-----|{_ARMOR}*)",
    ),
    # The tail of a block whose BEGIN line went to an earlier log entry.
    (
        "private_key",
        rf"(?:[A-Za-z0-9+/=]{{16,}}(?:\r?\n|\\n|\s)+)+(?:={_ARMOR}*)?-----END {_PEM_LABEL}-----",
    ),
    (
        "private_key",
        r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)"
        r"[A-Za-z0-9+/=]*",
    ),
    (
        "kubeconfig_credential",
        rf"\b(?:client-key-data|client-certificate-data){_Q}\s*:\s*{_Q}(?P<secret>[A-Za-z0-9+/=]{{16,}})",
    ),
    # A private key's DER in base64 without its PEM armor (PKCS#8 and PKCS#1 RSA headers).
    (
        "private_key",
        r"\bMII[A-Za-z0-9+/]{1,6}ADANBgkqhkiG9w0BAQEFAASC[A-Za-z0-9+/=]{64,}"
        r"|\bMII[A-Za-z0-9+/]{1,3}IBAAKC[A-Za-z0-9+/=]{64,}",
    ),
    ("service_account_key", rf"private_key_id{_Q}\s*:\s*{_Q}(?P<secret>[0-9A-Za-z]{{16,}})"),
    ("docker_auth", rf"{_Q}\bauth{_Q}\s*:\s*{_Q}(?P<secret>[A-Za-z0-9+/=]{{8,}})"),
    ("docker_auth", r"\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|eyAiYXV0aHMiOi)[A-Za-z0-9+/=]+"),
    # --- vendor token formats -------------------------------------------------------------------
    ("oauth_token", r"\bya29\.[0-9A-Za-z_.\-]{10,}"),
    ("oauth_refresh_token", r"\b1//0[0-9A-Za-z_\-]{20,}"),
    ("oauth_client_secret", r"\bGOCSPX-[0-9A-Za-z_\-]{20,}"),
    ("api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("hmac_key", r"\bGOOG[0-9A-Z]{20,}\b"),
    (
        "aws_access_key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
    ),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    (
        "gitlab_token",
        r"\b(?:glpat|gldt|glrt|glptt|glcbt|glft|glsoat|glimt|glagent|gloas)-[A-Za-z0-9_\-]{20,}"
        r"|\bGR1348941[A-Za-z0-9_\-]{20,}",
    ),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}|\bwhsec_[A-Za-z0-9]{24,}"),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b|\bapi_org_[A-Za-z0-9]{30,}\b"),
    ("anthropic_key", r"\bsk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_\-]{40,}"),
    (
        "openai_key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,}"
        r"|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|\bsk-[A-Za-z0-9]{32,}\b",
    ),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{20,24}\.[A-Za-z0-9_\-]{40,45}"),
    ("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    ("databricks_token", r"\bdapi[0-9a-f]{32}(?:-\d)?\b"),
    ("twilio_key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("docker_token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}"),
    ("azure_client_secret", r"\b[0-9A-Za-z_\-.~]{3}\dQ~[0-9A-Za-z_\-.~]{31,34}"),
    ("age_key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    ("tailscale_key", r"\btskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    ("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("linear_key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    ("grafana_token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}"),
    ("newrelic_key", r"\bNR(?:AK|AA|II|JS)-[A-Z0-9]{27}\b"),
    ("sentry_token", r"\bsntr[yu]s?_[A-Za-z0-9_=+/\-]{40,}"),
    ("replicate_token", r"\br8_[A-Za-z0-9]{37}\b"),
    ("groq_key", r"\bgsk_[A-Za-z0-9]{52}\b"),
    ("postman_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}"),
    ("firebase_key", r"\bAAAA[A-Za-z0-9_\-]{7}:[A-Za-z0-9_\-]{140}"),
    ("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    ("pulumi_token", r"\bpul-[a-f0-9]{40}\b"),
    ("artifactory_key", r"\bAKCp[A-Za-z0-9]{60,}|\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,}"),
    ("telegram_token", r"\d{8,10}:AA[A-Za-z0-9_\-]{32,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # --- secrets by context ---------------------------------------------------------------------
    (
        "bearer_token",
        rf"(?i)\bauthorization{_Q}\s*[:=]\s*{_Q}\s*bearer\s+(?P<secret>[A-Za-z0-9\-._~+/]+=*)",
    ),
    (
        "basic_auth",
        rf"(?i)\bauthorization{_Q}\s*[:=]\s*{_Q}\s*basic\s+(?P<secret>[A-Za-z0-9+/]+=*)",
    ),
    (
        "authorization",
        rf"(?i)\bauthorization{_Q}\s*[:=]\s*{_Q}\s*(?:[A-Za-z0-9\-]+\s+)?(?P<secret>[^\s\"'\\,]{{8,}})",
    ),
    ("url_password", r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@\"'<>]*:(?P<secret>[^/\s@\"'<>]+)@"),
    # A cookie header's value: `name=value` pairs (so a count like `"cookie": 2` is left alone).
    (
        "cookie",
        r"(?i)\b(?:set-)?cookie\\?[\"']?\s*:\s*\\?[\"']?(?P<secret>[^\s\"\\;=]+=[^\r\n\"\\]*)",
    ),
    (
        "url_credential",
        r"(?i)[?&;](?:sig|signature|x-goog-signature|x-amz-signature|x-amz-security-token|"
        r"x-goog-security-token|token|access_token|id_token|refresh_token|api_key|apikey|key|"
        r"auth|client_secret|code|password)=(?P<secret>[^&\s\"'#<>\\]+)",
    ),
    (
        "webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_\-]+)"
        r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret2>[A-Za-z0-9_\-]+)",
    ),
    (
        "credential",
        r"(?i)(?:^|\s)--?(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|token|secret|api-?key|"
        r"auth-?token|auth-?key|access-?key|secret-?key|client-?secret)(?:=|\s+)"
        r"(?P<secret>\"[^\"\r\n]*\"|'[^'\r\n]*'|[^\s\"'\-][^\s\"']*)",
    ),
    ("credential", r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<secret>\S+)"),
    # Passwords in the arguments of common clients: `curl -u user:pw`, `sshpass -p pw`,
    # `redis-cli -a pw`.
    (
        "credential",
        r"(?:^|\s)(?:-u|--user)\s+[^\s:\"']+:(?P<secret>[^\s\"']+)"
        r"|\bsshpass\s+-p\s*(?P<secret2>[^\s\"']+)"
        r"|\bredis-cli\b[^\n]*?\s-a\s+(?P<secret3>[^\s\"']+)",
    ),
    (
        "credential",
        r"\bwandb\s+login\s+(?:-{1,2}[A-Za-z\-]+\s+)*(?P<secret>(?:local-)?[0-9a-f]{40})\b",
    ),
    (
        "credential",
        r"\\?\"username\\?\"\s*:\s*\\?\"[^\"\\]*\\?\"\s*,\s*\\?\"key\\?\"\s*:\s*\\?\"(?P<secret>[^\"\\]+)",
    ),
    (
        "credential",
        rf"\\?\"name\\?\"\s*:\s*\\?\"{NAME_PATTERN}\\?\"\s*,\s*\\?\"value\\?\"\s*:\s*\\?\""
        r"(?P<secret>[^\"\\]+)",
    ),
    (
        "credential",
        rf"{_NAME_START}(?P<name>{NAME_PATTERN}){_Q}\]?{_ASSIGN}{_VALUE}",
    ),
    (
        "credential",
        rf"\b[A-Z][A-Z0-9_]*_(?:KEY|PAT|AUTH){_Q}{_ASSIGN}{_VALUE}",
    ),
    # Loose names: a credential word anywhere in a compound name (`TF_TOKEN_app_terraform_io=`,
    # `aws configure set aws_secret_access_key VALUE`); only a secret-looking value counts
    # (see `looks_secret`), so `token_count=4096` and `secret_name=db-creds` stay.
    (
        "credential",
        r"(?:^|[^A-Za-z0-9_.\-])(?P<loose>[A-Za-z0-9_.\-]*(?i:token|secret|passw(?:or)?d|api[_\-]?key|"
        r"access[_\-]?key)[A-Za-z0-9_.\-]*)(?:\s*=\s*|\s+)(?P<secret>[^\s\"'\\,;&|`]{16,})",
    ),
)

EMAIL_RULE = (
    "email",
    r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b",
)
IP_RULES = (
    (
        "ip",
        r"\b(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\b",
    ),
    (
        "ip",
        r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b"
        r"|\b(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}\b",
    ),
)
