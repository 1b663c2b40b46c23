"""Writes kinds.jsonl: one red-team case per secret kind, every value a FAKE in its real format.

Run `python tests/data/secrets/make_kinds.py` to regenerate (seeded, so byte-identical). Each
line is a case: `case` (unique name), `entries` (the log entries it is spread over, in the
order they are written to the bundle: each a `text` (textPayload), or `json` (jsonPayload), or
`labels`, plus an optional `second` for its timestamp), and `secrets` (fragments that must not
survive anywhere in redacted output). The formats follow each vendor's documentation; no value
here was ever a working credential.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

RNG = random.Random(16)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def r(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def pem_body(lines: int = 3) -> list[str]:
    return ["MIIEow" + r(B64, 58)] + [r(B64, 64) for _ in range(lines - 1)]


CASES: list[dict] = []


def case(name: str, entries: list, secrets: list[str]) -> None:
    CASES.append(
        {
            "case": name,
            "entries": [e if isinstance(e, dict) else {"text": e} for e in entries],
            "secrets": secrets,
        }
    )


def one(name: str, text: str, *secrets: str) -> None:
    case(name, [text], list(secrets))


akid = "AKIA" + r(UPPER, 16)
one("aws-access-key-id", f"botocore.credentials: Found credentials, access key {akid}", akid)
asia = "ASIA" + r(UPPER, 16)
one("aws-sts-session-key-id", f"assumed role, temporary key id {asia} expires 12:00", asia)
aws_secret = r(B64, 40)
one("aws-secret-access-key-env", f"env: AWS_SECRET_ACCESS_KEY={aws_secret}", aws_secret)
aws_secret2 = r(B64, 40)
one("aws-secret-credentials-file", f"[default]\naws_secret_access_key = {aws_secret2}", aws_secret2)
session = "FwoGZXIvYXdzE" + r(B64, 240)
one("aws-session-token-env", f"exported AWS_SESSION_TOKEN={session}", session[:40], session[-40:])
sts_secret, sts_token = r(B64, 40), "IQoJb3JpZ2luX2Vj" + r(B64, 300)
one(
    "aws-sts-json-output",
    json.dumps(
        {
            "Credentials": {
                "AccessKeyId": "ASIA" + r(UPPER, 16),
                "SecretAccessKey": sts_secret,
                "SessionToken": sts_token,
                "Expiration": "2024-05-01T12:00:00Z",
            }
        }
    ),
    sts_secret,
    sts_token[:40],
)
ya29 = "ya29.a0AfB_by" + r(URLSAFE, 150)
one("gcp-oauth-access-token", f"gcloud auth print-access-token -> {ya29}", ya29[5:45])
refresh = "1//0g" + r(URLSAFE, 98)
one(
    "google-oauth-refresh-token",
    f"oauth2client: refreshing credentials with {refresh}",
    refresh[4:44],
)
refresh2 = "1//0e" + r(URLSAFE, 98)
one(
    "google-refresh-token-json",
    json.dumps({"refresh_token": refresh2, "scope": "cloud-platform"}),
    refresh2[4:44],
)
gocspx = "GOCSPX-" + r(URLSAFE, 28)
one("google-client-secret", f"OAuth client configured (client secret {gocspx})", gocspx[7:])
adc_secret, adc_refresh = "GOCSPX-" + r(URLSAFE, 28), "1//0f" + r(URLSAFE, 98)
one(
    "gcp-adc-authorized-user-json",
    "application_default_credentials.json: "
    + json.dumps(
        {
            "account": "",
            "client_id": "764086051850-" + r(HEX, 32) + ".apps.googleusercontent.com",
            "client_secret": adc_secret,
            "quota_project_id": "fake-proj",
            "refresh_token": adc_refresh,
            "type": "authorized_user",
        }
    ),
    adc_secret[7:],
    adc_refresh[4:44],
)
key_id = r(HEX, 40)
body = pem_body(4)
sa = {
    "type": "service_account",
    "project_id": "fake-proj",
    "private_key_id": key_id,
    "private_key": "-----BEGIN PRIVATE KEY-----\n"
    + "\n".join(body)
    + "\n-----END PRIVATE KEY-----\n",
    "client_email": "trainer@fake-proj.iam.gserviceaccount.com",
    "client_id": "1" + r("0123456789", 20),
    "token_uri": "https://oauth2.googleapis.com/token",
}
one("gcp-sa-json-key", "mounted key file: " + json.dumps(sa), key_id, body[1], body[2])
key_id2, body2 = r(HEX, 40), pem_body(4)
sa2 = dict(
    sa,
    private_key_id=key_id2,
    private_key="-----BEGIN PRIVATE KEY-----\n"
    + "\n".join(body2)
    + "\n-----END PRIVATE KEY-----\n",
)
one(
    "gcp-sa-json-key-escaped-in-string",
    "GOOGLE_CREDENTIALS=" + json.dumps(json.dumps(sa2)),
    key_id2,
    body2[1],
)
key_id3, body3 = r(HEX, 40), pem_body(3)
pretty = json.dumps(
    dict(
        sa,
        private_key_id=key_id3,
        private_key="-----BEGIN PRIVATE KEY-----\n"
        + "\n".join(body3)
        + "\n-----END PRIVATE KEY-----\n",
    ),
    indent=2,
).splitlines()
case("gcp-sa-json-key-one-line-per-entry", pretty, [key_id3, body3[1]])
key_id4, body4 = r(HEX, 40), pem_body(3)
case(
    "gcp-sa-json-key-structured-payload",
    [
        {
            "json": {
                "message": "loaded credentials",
                "credentials": dict(
                    sa,
                    private_key_id=key_id4,
                    private_key="-----BEGIN PRIVATE KEY-----\n"
                    + "\n".join(body4)
                    + "\n-----END PRIVATE KEY-----\n",
                ),
            }
        }
    ],
    [key_id4, body4[1]],
)
aiza = "AIza" + r(URLSAFE, 35)
one("gcp-api-key", f"https://generativelanguage.googleapis.com/v1beta/models?key={aiza}", aiza)
goog1 = "GOOG1E" + r(UPPER, 55)
one("gcs-hmac-access-id", f"using HMAC access id {goog1} for interop", goog1[6:])
hmac_secret = r(B64, 40)
one(
    "gcs-hmac-secret-boto",
    f"[Credentials]\ngs_access_key_id = {goog1}\ngs_secret_access_key = {hmac_secret}",
    hmac_secret,
)
hmac_secret2 = r(B64, 40)
one(
    "gcs-hmac-create-output",
    f"accessId: {goog1}\nsecret: {hmac_secret2}\nstate: ACTIVE",
    hmac_secret2,
)
account_key = r(B64, 86) + "=="
one(
    "azure-storage-connection-string",
    f"DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={account_key};EndpointSuffix=core.windows.net",
    account_key[:40],
)
sig = r(ALNUM, 40) + "%2B" + r(ALNUM, 3) + "%3D"
one(
    "azure-sas-token",
    "GET https://fakeacct.blob.core.windows.net/ckpt/step1.tar?sv=2022-11-02&ss=b&srt=co&sp=rl"
    f"&se=2024-05-02T00:00:00Z&st=2024-05-01T00:00:00Z&spr=https&sig={sig}",
    sig[:40],
)
azure_ad = r(ALNUM, 3) + "8Q~" + r(URLSAFE + "~.", 34)
one(
    "azure-ad-client-secret",
    f"msal: acquiring token with client credential {azure_ad}",
    azure_ad[6:],
)
sb_key = r(B64, 43) + "="
one(
    "azure-service-bus-shared-access-key",
    f"Endpoint=sb://fake-ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={sb_key}",
    sb_key[:30],
)
hf = "hf_" + r(string.ascii_letters, 34)
one("huggingface-token", f"huggingface_hub: logged in with {hf}", hf[3:])
hf2 = "hf_" + r(string.ascii_letters, 34)
one(
    "huggingface-token-in-url",
    f"git clone https://fakeuser:{hf2}@huggingface.co/fake-org/model",
    hf2[3:],
)
openai = "sk-" + r(ALNUM, 20) + "T3BlbkFJ" + r(ALNUM, 20)
one(
    "openai-legacy-key",
    f"openai.error.AuthenticationError: Incorrect API key provided: {openai}",
    openai[3:23],
)
openai_proj = "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74)
one("openai-project-key", f"OPENAI_API_KEY is {openai_proj}", openai_proj[8:48])
anthropic = "sk-ant-api03-" + r(URLSAFE, 93) + "AA"
one("anthropic-api-key", f"anthropic client created with key {anthropic}", anthropic[13:53])
wandb = r(HEX, 40)
one("wandb-api-key-env", f"WANDB_API_KEY={wandb}", wandb)
wandb2 = r(HEX, 40)
one("wandb-netrc", f"machine api.wandb.ai\n  login user\n  password {wandb2}", wandb2)
wandb3 = r(HEX, 40)
one("wandb-login-command", f"+ wandb login --relogin {wandb3}", wandb3)
kaggle = r(HEX, 32)
one("kaggle-json", json.dumps({"username": "fakeuser", "key": kaggle}), kaggle)
kaggle2 = r(HEX, 32)
one("kaggle-key-env", f"export KAGGLE_USERNAME=fakeuser KAGGLE_KEY={kaggle2}", kaggle2)
npm = "npm_" + r(ALNUM, 36)
one("npm-access-token", f"npm notice using token {npm}", npm[4:])
npm_uuid = f"{r(HEX, 8)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 12)}"
one("npmrc-auth-token", f"//registry.npmjs.org/:_authToken={npm_uuid}", npm_uuid)
pypi = "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 120)
one("pypi-api-token", f"twine upload -u __token__ -p {pypi} dist/*", pypi[20:60])
pypi2 = "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 120)
one("pypirc-password", f"[pypi]\nusername = __token__\npassword = {pypi2}", pypi2[20:60])
sendgrid = "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43)
one("sendgrid-api-key", f"alerting: sendgrid key {sendgrid}", sendgrid[3:40])
vault = "hvs." + r(URLSAFE, 91)
one("vault-service-token", f"vault: authenticated, token {vault}", vault[4:44])
vault_legacy = "s." + r(ALNUM, 24)
one(
    "vault-legacy-token-header", f"request headers: X-Vault-Token: {vault_legacy}", vault_legacy[2:]
)
dapi = "dapi" + r(HEX, 32)
one(
    "databricks-pat",
    f"databricks-cli: host https://adb-1.azuredatabricks.net token {dapi}",
    dapi[4:],
)
dd = r(HEX, 32)
one("datadog-api-key-env", f"datadog-agent: DD_API_KEY={dd}", dd)
dd_app = r(HEX, 40)
one(
    "datadog-app-key-header",
    f"curl -H 'DD-APPLICATION-KEY: {dd_app}' https://api.datadoghq.com/api/v1/validate",
    dd_app,
)
twilio_sk = "SK" + r(HEX, 32)
one("twilio-api-key-sid", f"twilio client using api key {twilio_sk}", twilio_sk[2:])
twilio_token = r(HEX, 32)
one(
    "twilio-auth-token-env",
    f"TWILIO_ACCOUNT_SID=AC{r(HEX, 32)} TWILIO_AUTH_TOKEN={twilio_token}",
    twilio_token,
)
ghp = "ghp_" + r(ALNUM, 36)
one("github-classic-pat", f"remote: Invalid username or token {ghp}", ghp[4:])
gh_fine = "github_pat_11" + r(UPPER, 20) + "_" + r(ALNUM, 59)
one("github-fine-grained-pat", f"GH_TOKEN={gh_fine}", gh_fine[11:50])
ghs = "ghs_" + r(ALNUM, 36)
one(
    "github-app-token-in-url",
    f"git fetch https://x-access-token:{ghs}@github.com/fake-org/repo.git",
    ghs[4:],
)
glpat = "glpat-" + r(URLSAFE, 20)
one(
    "gitlab-pat-header",
    f"curl --header 'PRIVATE-TOKEN: {glpat}' https://gitlab.com/api/v4/projects",
    glpat[6:],
)
glrt = "glrt-" + r(URLSAFE, 20)
one("gitlab-runner-token", f"gitlab-runner register --token {glrt}", glrt[5:])
gldt = "gldt-" + r(URLSAFE, 20)
one("gitlab-deploy-token", f"pulling image with deploy token {gldt}", gldt[5:])
xoxb = f"xoxb-{r('0123456789', 12)}-{r('0123456789', 13)}-{r(ALNUM, 24)}"
one("slack-bot-token", f"slack_sdk: posting as bot {xoxb}", xoxb[5:])
xapp = f"xapp-1-A{r(UPPER, 10)}-{r('0123456789', 13)}-{r(HEX, 64)}"
one("slack-app-token", f"socket mode connected with {xapp}", xapp[-64:])
hook = f"https://hooks.slack.com/services/T{r(UPPER, 8)}/B{r(UPPER, 10)}/{r(ALNUM, 24)}"
one("slack-webhook", f"alert sent to {hook}", hook.rsplit("/", 1)[1])
discord = f"https://discord.com/api/webhooks/{r('0123456789', 18)}/{r(URLSAFE, 68)}"
one("discord-webhook", f"notifier: POST {discord} 204", discord.rsplit("/", 1)[1])
stripe = "sk_live_" + r(ALNUM, 99)
one("stripe-live-secret-key", f"stripe.api_key = {stripe}", stripe[8:48])
rk = "rk_live_" + r(ALNUM, 99)
one("stripe-restricted-key", f"billing exporter: restricted key {rk}", rk[8:48])
whsec = "whsec_" + r(ALNUM, 32)
one("stripe-webhook-secret", f"webhook signing secret {whsec}", whsec[6:])


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


jwt_sig = r(URLSAFE, 43)
jwt = (
    b64url(b'{"alg":"RS256","typ":"JWT"}')
    + "."
    + b64url(b'{"sub":"fake-user","iat":1700000000}')
    + "."
    + jwt_sig
)
one("jwt", f"validating id_token {jwt}", jwt_sig)
cookie_val = r(URLSAFE, 40)
one(
    "set-cookie-header",
    f"response: Set-Cookie: __Secure-session={cookie_val}; Path=/; HttpOnly",
    cookie_val,
)
cookie_val2 = r(URLSAFE, 40)
one("cookie-header", f"request headers: Cookie: SID={cookie_val2}; theme=dark", cookie_val2)
url_pw = "Tr0ub4dor-" + r(ALNUM, 10)
one("basic-auth-url", f"connecting to https://trainer:{url_pw}@metrics.fake.internal/push", url_pw)
mysql_pw = r(ALNUM, 16)
one(
    "mysql-url-password",
    f"sqlalchemy: mysql+pymysql://root:{mysql_pw}@10.1.2.3:3306/runs",
    mysql_pw,
)
redis_pw = r(ALNUM, 16)
one("redis-url-password-only", f"cache at redis://:{redis_pw}@redis-master:6379/0", redis_pw)
basic = base64.b64encode(f"fakeuser:{r(ALNUM, 12)}".encode()).decode()
one("basic-auth-header", f"proxy sent Authorization: Basic {basic}", basic)
proxy_basic = base64.b64encode(f"proxyuser:{r(ALNUM, 12)}".encode()).decode()
one(
    "proxy-authorization-header",
    f"CONNECT storage.googleapis.com:443 Proxy-Authorization: Basic {proxy_basic}",
    proxy_basic,
)
bearer = r(ALNUM, 48)
one("bearer-header-opaque", f"headers={{'Authorization': 'Bearer {bearer}'}}", bearer)
api_key_hdr = r(HEX, 32)
one(
    "azure-openai-api-key-header",
    f"POST /openai/deployments/gpt/chat api-key: {api_key_hdr}",
    api_key_hdr,
)
xgoog = "AIza" + r(URLSAFE, 35)
one("x-goog-api-key-header", f"X-Goog-Api-Key: {xgoog}", xgoog[4:])
rsa = pem_body(4)
one(
    "pem-rsa-private-key",
    "loaded key:\n-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(rsa)
    + "\n-----END RSA PRIVATE KEY-----",
    rsa[0][6:],
    rsa[2],
)
ec = pem_body(2)
one(
    "pem-ec-private-key-escaped",
    "key=-----BEGIN EC PRIVATE KEY-----\\n" + "\\n".join(ec) + "\\n-----END EC PRIVATE KEY-----",
    ec[1],
)
cut = pem_body(2)
one(
    "pem-cut-off-at-line-end", "truncated: -----BEGIN PRIVATE KEY-----\\n" + "\\n".join(cut), cut[1]
)
split = pem_body(4)
case(
    "pem-split-over-entries",
    ["writing key file:\n-----BEGIN RSA PRIVATE KEY-----", *split, "-----END RSA PRIVATE KEY-----"],
    [s[6:] if i == 0 else s for i, s in enumerate(split)],
)
rev = pem_body(3)
case(
    "pem-split-newest-first",
    [
        {"text": "-----END PRIVATE KEY-----", "second": 5},
        *[{"text": s, "second": 4 - i} for i, s in enumerate(reversed(rev))],
        {"text": "-----BEGIN PRIVATE KEY-----", "second": 1},
    ],
    rev,
)
enc = pem_body(3)
case(
    "pem-encrypted-split",
    [
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + enc[0],
        "\n".join(enc[1:]),
        "-----END ENCRYPTED PRIVATE KEY-----",
    ],
    enc,
)
body_end = pem_body(3)
case(
    "pem-body-and-end-in-one-entry",
    [
        "key follows -----BEGIN PRIVATE KEY-----",
        "\n".join(body_end) + "\n-----END PRIVATE KEY-----",
    ],
    body_end,
)
openssh = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + r(B64, 2),
    r(B64, 70),
    r(B64, 70),
]
one(
    "openssh-private-key",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "\n".join(openssh)
    + "\n-----END OPENSSH PRIVATE KEY-----",
    openssh[1],
    openssh[2],
)
pgp = ["lQOYBF" + r(B64, 58), r(B64, 64), r(B64, 64)]
case(
    "pgp-private-key-block-split",
    [
        "gpg --export-secret-keys output:",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        "Version: GnuPG v2",
        "",
        *pgp,
        "=" + r(B64, 4),
        "-----END PGP PRIVATE KEY BLOCK-----",
    ],
    [pgp[0][6:], pgp[1], pgp[2]],
)
pgp1 = ["lQOYBF" + r(B64, 58), r(B64, 64)]
one(
    "pgp-private-key-block",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    + "\n".join(pgp1)
    + "\n="
    + r(B64, 4)
    + "\n-----END PGP PRIVATE KEY BLOCK-----",
    pgp1[1],
)
ckd = base64.b64encode(
    (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(pem_body(3))
        + "\n-----END RSA PRIVATE KEY-----\n"
    ).encode()
).decode()
one("kubeconfig-client-key-data", f"    client-key-data: {ckd}", ckd[40:80], ckd[-40:])
ccd = base64.b64encode(
    (
        "-----BEGIN CERTIFICATE-----\n" + "\n".join(pem_body(3)) + "\n-----END CERTIFICATE-----\n"
    ).encode()
).decode()
one("kubeconfig-client-certificate-data", f"    client-certificate-data: {ccd}", ccd[40:80])
kube_token = r(HEX, 64)
one("kubeconfig-token", f"users:\n- name: admin\n  user:\n    token: {kube_token}", kube_token)
ckd2 = base64.b64encode(
    (
        "-----BEGIN EC PRIVATE KEY-----\n"
        + "\n".join(pem_body(2))
        + "\n-----END EC PRIVATE KEY-----\n"
    ).encode()
).decode()
kube_token2 = r(ALNUM, 40)
case(
    "kubeconfig-one-line-per-entry",
    [
        "users:",
        "- name: gke_fake-proj_us-central2-b_tpu",
        "  user:",
        f"    client-key-data: {ckd2}",
        f"    token: {kube_token2}",
    ],
    [ckd2[40:80], kube_token2],
)
boot = f"{r(string.ascii_lowercase + string.digits, 6)}.{r(string.ascii_lowercase + string.digits, 16)}"
one(
    "kubeadm-bootstrap-token-flag",
    f"kubeadm join 10.0.0.1:6443 --token {boot} --discovery-token-ca-cert-hash sha256:{r(HEX, 64)}",
    boot.split(".")[1],
)
docker_auth = base64.b64encode(f"fakeuser:{r(ALNUM, 20)}".encode()).decode()
one(
    "docker-config-auths",
    json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": docker_auth}}}),
    docker_auth,
)
docker_auth2 = base64.b64encode(f"_json_key:{r(ALNUM, 30)}".encode()).decode()
case(
    "docker-auths-structured-payload",
    [
        {
            "json": {
                "message": "registry config",
                "auths": {
                    "us-docker.pkg.dev": {"auth": docker_auth2, "identitytoken": r(URLSAFE, 40)}
                },
            }
        }
    ],
    [docker_auth2],
)
dcj = base64.b64encode(
    json.dumps(
        {"auths": {"ghcr.io": {"auth": base64.b64encode(f"u:{r(ALNUM, 20)}".encode()).decode()}}}
    ).encode()
).decode()
one("dockerconfigjson-base64", f"secret data .dockerconfigjson: {dcj}", dcj[12:52])
dckr = "dckr_pat_" + r(URLSAFE, 27)
one("docker-hub-pat", f"docker login -u fakeuser -p {dckr}", dckr[9:])
db_pw = "hunter2-" + r(ALNUM, 8)
one("db-password-env", f"starting with DB_PASSWORD={db_pw} DB_HOST=db", db_pw)
mysql_root = r(ALNUM, 14)
one("mysql-root-password-yaml", f"  MYSQL_ROOT_PASSWORD: {mysql_root}", mysql_root)
pg_pw = "correct horse " + r(string.ascii_lowercase, 8)
one("postgres-password-quoted-spaces", f'POSTGRES_PASSWORD="{pg_pw}" initdb', pg_pw)
flag_pw = "FAKEpass" + r(ALNUM, 8)
one("password-flag", f"+ mysql --user root --password {flag_pw} -e 'select 1'", flag_pw)
flag_pw2 = "FAKEpass" + r(ALNUM, 8)
one(
    "password-flag-equals",
    f"helm registry login us-docker.pkg.dev --username oauth2 --password={flag_pw2}",
    flag_pw2,
)
auth_tok = r(ALNUM, 32)
one("auth-token-flag", f"ngrok http 8080 --authtoken {auth_tok}", auth_tok)
env_pw = "FAKE" + r(ALNUM, 12)
case(
    "k8s-env-name-value-structured",
    [
        {
            "json": {
                "message": "pod spec",
                "env": [
                    {"name": "DB_HOST", "value": "db"},
                    {"name": "DB_PASSWORD", "value": env_pw},
                ],
            }
        }
    ],
    [env_pw],
)
env_pw2 = "FAKE" + r(ALNUM, 12)
one(
    "k8s-env-name-value-text",
    json.dumps({"env": [{"name": "REDIS_PASSWORD", "value": env_pw2}]}),
    env_pw2,
)
label_tok = "ghp_" + r(ALNUM, 36)
case(
    "secret-in-label-value",
    [{"text": "deploy finished", "labels": {"deploy-note": f"pushed with {label_tok}"}}],
    [label_tok[4:]],
)
label_key = r(ALNUM, 32)
case(
    "secret-under-label-key",
    [{"text": "sidecar started", "labels": {"api-token": label_key}}],
    [label_key],
)
key_secret = r(ALNUM, 40)
case(
    "secret-in-a-dict-key",
    [
        {
            "json": {
                "message": "headers seen",
                "headers": {f"Authorization: Bearer {key_secret}": "1"},
            }
        }
    ],
    [key_secret],
)
deep_key = r(ALNUM, 40)
case(
    "secret-in-nested-payload",
    [{"json": {"message": "request", "request": {"http": {"headers": {"X-Api-Key": deep_key}}}}}],
    [deep_key],
)
camel_secret, camel_token = r(ALNUM, 32), r(ALNUM, 40)
one(
    "camelcase-json-fields",
    json.dumps({"clientSecret": camel_secret, "accessToken": camel_token}),
    camel_secret,
    camel_token,
)
yaml_secret = r(ALNUM, 32)
one("yaml-secret-key", f"config:\n  secretKey: {yaml_secret}\n  region: us-central2", yaml_secret)
gsig = r(HEX, 512)
one(
    "gcs-signed-url",
    "GET https://storage.googleapis.com/fake-bucket/ckpt.tar?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40fake-proj.iam.gserviceaccount.com%2F20240501%2Fauto%2Fstorage%2Fgoog4_request"
    f"&X-Goog-Date=20240501T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={gsig}",
    gsig[:64],
)
amz_tok, amz_sig = "IQoJb3JpZ2luX2Vj" + r(ALNUM, 200), r(HEX, 64)
one(
    "aws-presigned-url",
    f"s3 download https://fake.s3.amazonaws.com/data.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Security-Token={amz_tok}&X-Amz-Signature={amz_sig}",
    amz_tok[:40],
    amz_sig,
)
query_tok = r(ALNUM, 40)
one(
    "access-token-query-param",
    f"GET https://api.fake.example/v1/items?access_token={query_tok}&page=2",
    query_tok,
)
tg = f"{r('0123456789', 10)}:AA{r(URLSAFE, 33)}"
one("telegram-bot-token", f"POST https://api.telegram.org/bot{tg}/sendMessage", tg.split(":")[1])
age = "AGE-SECRET-KEY-1" + r(UPPER, 58)
one("age-secret-key", f"sops: using {age}", age[16:])
tskey = f"tskey-auth-k{r(ALNUM, 10)}CNTRL-{r(ALNUM, 33)}"
one("tailscale-auth-key", f"tailscale up --auth-key={tskey}", tskey[-33:])
do = "dop_v1_" + r(HEX, 64)
one("digitalocean-token", f"doctl auth init -t {do}", do[7:])
shpat = "shpat_" + r(HEX, 32)
one("shopify-access-token", f"shopify: X-Shopify-Access-Token {shpat}", shpat[6:])
lin = "lin_api_" + r(ALNUM, 40)
one("linear-api-key", f"linear sync using {lin}", lin[8:])
glsa = "glsa_" + r(ALNUM, 32) + "_" + r(HEX, 8)
one("grafana-service-account-token", f"grafana provisioning with {glsa}", glsa[5:37])
nrak = "NRAK-" + r(UPPER, 27)
one("newrelic-user-key", f"newrelic: user key {nrak}", nrak[5:])
sntryu = "sntryu_" + r(HEX, 64)
one("sentry-user-token", f"sentry-cli login --auth-token {sntryu}", sntryu[7:])
r8 = "r8_" + r(ALNUM, 37)
one("replicate-api-token", f"replicate client token {r8}", r8[3:])
gsk = "gsk_" + r(ALNUM, 52)
one("groq-api-key", f"groq: key {gsk}", gsk[4:])
pmak = f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}"
one("postman-api-key", f"newman run --postman-api-key {pmak}", pmak[5:])
doppler = "dp.pt." + r(ALNUM, 43)
one("doppler-token", f"doppler setup --token {doppler}", doppler[6:])
tfc = r(ALNUM, 14) + ".atlasv1." + r(URLSAFE, 67)
one("terraform-cloud-token", f"credentials app.terraform.io token {tfc}", tfc[-40:])
fcm = "AAAA" + r(URLSAFE, 7) + ":APA91b" + r(URLSAFE, 134)
one("firebase-fcm-server-key", f"fcm: Authorization key={fcm}", fcm[12:60])
mailchimp = r(HEX, 32) + "-us12"
one("mailchimp-api-key", f"mailchimp marketing api {mailchimp}", mailchimp[:32])
pulumi = "pul-" + r(HEX, 40)
one("pulumi-access-token", f"pulumi login with {pulumi}", pulumi[4:])
artifactory = "AKCp8" + r(ALNUM, 68)
one("artifactory-api-key", f"jfrog: X-JFrog-Art-Api: {artifactory}", artifactory[5:45])
nested_pw = r(ALNUM, 20)
case(
    "password-in-jsonpayload-message-json",
    [{"json": {"message": json.dumps({"db": {"user": "u", "password": nested_pw}})}}],
    [nested_pw],
)
pass_word = r(ALNUM, 20)
one("passphrase-env", f"GPG_PASSPHRASE={pass_word} gpg --batch --import", pass_word)

# --- round 2: fresh-eyes formats (written after the rules above were green) ----------------------
ROUND2_START = len(CASES)
ado = r(string.ascii_lowercase + "234567", 52)
one("azure-devops-pat-env", f"AZURE_DEVOPS_EXT_PAT={ado} az devops login", ado)
tf_tok = r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 20)
one("terraform-token-env-mixed-case", f"TF_TOKEN_app_terraform_io={tf_tok}", tf_tok[:14])
auth_code = "4/0A" + r(URLSAFE, 70)
one(
    "google-oauth-authorization-code",
    f"GET /callback?state=x&code={auth_code}&scope=email",
    auth_code[4:44],
)
jdbc_pw = r(ALNUM, 16)
one(
    "jdbc-url-password-param",
    f"jdbc:postgresql://db:5432/runs?user=trainer&password={jdbc_pw}",
    jdbc_pw,
)
mongo_pw = r(ALNUM, 16)
one("mongodb-srv-url", f"mongodb+srv://trainer:{mongo_pw}@cluster0.fake.mongodb.net/db", mongo_pw)
pkcs8 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + r(B64, 300)
one("bare-pkcs8-der-base64", f"key material {pkcs8}", pkcs8[60:120])
pkcs1 = "MIIEowIBAAKCAQEA" + r(B64, 300)
one("bare-pkcs1-der-base64", f"rsa={pkcs1}", pkcs1[40:100])
aws_cfg = r(B64, 40)
one("aws-configure-set-secret", f"+ aws configure set aws_secret_access_key {aws_cfg}", aws_cfg)
argv_pw = "FAKE" + r(ALNUM, 14)
case(
    "argv-list-password-structured",
    [{"json": {"message": "container args", "args": ["--user", "trainer", "--password", argv_pw]}}],
    [argv_pw],
)
curl_pw = r(ALNUM, 14)
one(
    "curl-user-colon-password",
    f"+ curl -sS -u trainer:{curl_pw} https://metrics.fake/push",
    curl_pw,
)
sshpass = r(ALNUM, 14)
one("sshpass-password", f"+ sshpass -p {sshpass} ssh tpu-vm-0", sshpass)
redis_pw = r(ALNUM, 16)
one("redis-cli-auth", f"+ redis-cli -h redis-master -a {redis_pw} ping", redis_pw)
gh_oauth = "gho_" + r(ALNUM, 36)
case(
    "secret-in-resource-label",
    [
        {
            "text": "started",
            "labels": {"note": "x"},
            "json": {"message": "started", "session": {"oauth": gh_oauth}},
        }
    ],
    [gh_oauth[4:]],
)
x_auth = r(ALNUM, 40)
one("x-auth-token-header", f"request headers: X-Auth-Token: {x_auth}", x_auth)
pgpw = r(ALNUM, 14)
one("pgpassword-env-inline", f"+ PGPASSWORD={pgpw} psql -h db -U trainer", pgpw)
secret_literal = r(ALNUM, 16)
one(
    "kubectl-from-literal",
    f"+ kubectl create secret generic db --from-literal=password={secret_literal}",
    secret_literal,
)


def main() -> None:
    out = Path(__file__).with_name("kinds.jsonl")
    names = [c["case"] for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    out.write_text("".join(json.dumps(c, sort_keys=True) + "\n" for c in CASES), encoding="utf-8")
    print(f"{len(CASES)} cases -> {out}")


if __name__ == "__main__":
    main()
