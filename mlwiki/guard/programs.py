"""What each program does with its arguments: the guard's table of known programs.

Every simple command is looked up here by its program name. A handler returns `Effects`: the
reasons to ask, the further commands the program runs (a wrapper's command, `find -exec`, the
script of `bash -c`), the files it writes and the environment it sets; the caller judges those
in turn. A program not in the table is not a known read and asks. The table holds:

- the cluster tools (kubectl, gcloud, gsutil, helm, kustomize): `mlwiki.mutations` judges them;
- `mlwiki` and `python -m mlwiki` (`mlwiki_cli`);
- wrappers that run another command (`sudo`, `env`, `timeout`, `nice`, `nohup`, `setsid`,
  `flock`, `strace`, `watch`, `xargs`, `script`, `busybox`, `ssh`, `parallel`, `find -exec`…),
  each with its own options so that the command it runs is found exactly;
- POSIX shells (`sh -c SCRIPT` is parsed as shell; a shell reading a file or stdin asks);
- local read-only utilities, with the options that would make them write files or run
  programs (`sort -o`, `sed -i`/`e`/`w`, `awk` `system()`/pipes/redirection, `rg --pre`…);
- network clients, interpreters with code, pagers and everything else: they ask.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Callable, Optional

from mlwiki.guard.options import Scanned, UnknownOption, scan, switches, valued
from mlwiki.guard.textfilters import awk_concern, sed_concern
from mlwiki.mutations import DYNAMIC, classify, is_dynamic, program_name


@dataclass
class Context:
    cwd: Optional[str] = None  # the agent's working directory, from the hook payload
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Effects:
    reasons: list[str] = field(default_factory=list)
    argvs: list[list[str]] = field(default_factory=list)  # further commands, as argument lists
    scripts: list[str] = field(default_factory=list)  # further shell text
    writes: list[str] = field(default_factory=list)  # files written
    assignments: list[tuple[str, str]] = field(default_factory=list)  # environment set

    @classmethod
    def ask(cls, reason: str) -> Effects:
        return cls(reasons=[reason])


Handler = Callable[[str, list[str], Context], Effects]
HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = handler
        return handler

    return register


def judge_program(argv: list[str], context: Context) -> Effects:
    """The effects of running `argv` (its first word already a literal program)."""
    name = program_name(argv[0])
    handler = HANDLERS.get(name)
    if handler is None and PYTHON_NAMES.fullmatch(name):
        handler = python
    if handler is None:
        return Effects.ask(f"{name} is not a known read-only command")
    try:
        return handler(name, argv[1:], context)
    except UnknownOption as error:
        return Effects.ask(
            f"{name}: option {error} is not known to the guard, so what it runs cannot be told"
        )


# --- cluster tools -----------------------------------------------------------------------------


@handles("kubectl", "gcloud", "gsutil", "helm", "kustomize")
def cluster_tool(name: str, args: list[str], context: Context) -> Effects:
    verdict = classify([name, *args])
    if verdict is None or verdict.mutating:
        reason = verdict.reason if verdict else f"{name} is not known"
        return Effects.ask(f"{reason}: {_shown([name, *args])}")
    return Effects()


@handles("mlwiki")
def mlwiki(name: str, args: list[str], context: Context) -> Effects:
    from mlwiki.guard.mlwiki_cli import judge_mlwiki

    reason = judge_mlwiki(args, context.cwd, context.env)
    return Effects.ask(reason) if reason else Effects()


# --- wrappers: they run the command that follows their own options --------------------------

_SUDO = {
    **valued("-u --user -g --group -C --close-from -D --chdir -p --prompt -r --role -t --type"),
    **valued("-U --other-user -T --command-timeout"),
    **switches("-A --askpass -b --background -E -H --set-home -k --reset-timestamp -K"),
    **switches("--remove-timestamp -n --non-interactive -P --preserve-groups -S --stdin -B --bell"),
    **switches("--preserve-env"),
}


@handles("sudo", "doas")
def sudo(name: str, args: list[str], context: Context) -> Effects:
    spec = _SUDO if name == "sudo" else {**valued("-u -C"), **switches("-n")}
    for word in args:
        if word.split("=", 1)[0] in ("-s", "--shell", "-i", "--login", "-e", "--edit", "-C"):
            return Effects.ask(f"{name} {word} starts a shell or an editor")
    scanned = scan(args, spec)
    assignments, command = _leading_assignments(scanned.operands)
    return Effects(argvs=[command] if command else [], assignments=assignments)


_ENV = {
    **switches("-i --ignore-environment -0 --null -v --debug"),
    **valued("-u --unset -C --chdir"),
}


@handles("env")
def env(name: str, args: list[str], context: Context) -> Effects:
    if any(w.split("=", 1)[0] in ("-S", "--split-string") or w.startswith("-S") for w in args):
        return Effects.ask("env -S splits a string into a command line the guard does not parse")
    scanned = scan(args, _ENV)
    assignments, command = _leading_assignments(scanned.operands)
    return Effects(argvs=[command] if command else [], assignments=assignments)


def _simple_wrapper(spec: Mapping[str, bool], operands_before_command: int = 0) -> Handler:
    def handler(name: str, args: list[str], context: Context) -> Effects:
        scanned = scan(args, spec)
        command = scanned.operands[operands_before_command:]
        if any(is_dynamic(word) for word in scanned.operands[:operands_before_command]):
            return Effects.ask(f"{name}: a computed word stands before the command")
        return Effects(argvs=[command] if command else [])

    return handler


HANDLERS["nohup"] = _simple_wrapper({})
HANDLERS["chronic"] = _simple_wrapper({})
HANDLERS["unbuffer"] = _simple_wrapper(switches("-p"))
HANDLERS["nice"] = _simple_wrapper(
    {**valued("-n --adjustment"), **{f"-{n}": False for n in range(10)}}
)
HANDLERS["ionice"] = _simple_wrapper(
    {**valued("-c --class -n --classdata"), **switches("-t --ignore")}
)
HANDLERS["stdbuf"] = _simple_wrapper(valued("-i --input -o --output -e --error"))
HANDLERS["setsid"] = _simple_wrapper(switches("-c --ctty -f --fork -w --wait"))
HANDLERS["timeout"] = _simple_wrapper(
    {
        **valued("-s --signal -k --kill-after"),
        **switches("--foreground --preserve-status -v --verbose"),
    },
    operands_before_command=1,
)
HANDLERS["coproc"] = _simple_wrapper({})


@handles("command")
def command_builtin(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(args, switches("-p -v -V"))
    if scanned.has("-v", "-V"):
        return Effects()  # only says what a name would run
    return Effects(argvs=[scanned.operands] if scanned.operands else [])


@handles("builtin")
def builtin(name: str, args: list[str], context: Context) -> Effects:
    return Effects(argvs=[args] if args else [])


@handles("exec")
def exec_builtin(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(args, {**switches("-c -l"), **valued("-a")})
    return Effects(argvs=[scanned.operands] if scanned.operands else [])


@handles("time")
def time_wrapper(name: str, args: list[str], context: Context) -> Effects:
    spec = {
        **switches("-p --portability -v --verbose -a --append -q --quiet"),
        **valued("-f --format -o --output"),
    }
    scanned = scan(args, spec)
    return Effects(
        argvs=[scanned.operands] if scanned.operands else [],
        writes=scanned.values("-o", "--output"),
    )


@handles("flock")
def flock(name: str, args: list[str], context: Context) -> Effects:
    spec = {
        **switches("-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -o --close"),
        **switches("-F --no-fork --verbose"),
        **valued("-w --wait --timeout -E --conflict-exit-code -c --command"),
    }
    scanned = scan(args, spec)
    scripts = scanned.values("-c", "--command")
    command = scanned.operands[1:]
    inner = (
        scan(command, valued("-c --command")) if command[:1] in (["-c"], ["--command"]) else None
    )
    if inner is not None:
        scripts += inner.values("-c", "--command")
        command = []
    return Effects(argvs=[command] if command else [], scripts=scripts)


_STRACE = {
    **valued("-e -o -p -s -u -E -a -b -I -O -P -S -X -U"),
    **switches("-f -F -c -C -d -D -h -i -k -q -r -t -T -v -V -w -x -y -z -Z -n"),
}


@handles("strace", "ltrace")
def strace(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(args, _STRACE)
    assignments = [tuple(v.split("=", 1)) for v in scanned.values("-E") if "=" in v]
    return Effects(
        argvs=[scanned.operands] if scanned.operands else [],
        writes=scanned.values("-o"),
        assignments=[(a, b) for a, b in assignments],
    )


_WATCH = {
    **valued("-n --interval -q --equexit"),
    **switches("-d --differences -t --no-title -b --beep -e --errexit -g --chgexit -c --color"),
    **switches("-C --no-color -p --precise -w --no-wrap -x --exec -r --no-rerun"),
}


@handles("watch")
def watch(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(
        [a if not a.startswith("--differences") else "--differences" for a in args], _WATCH
    )
    if not scanned.operands:
        return Effects()
    if scanned.has("-x", "--exec"):
        return Effects(argvs=[scanned.operands])
    return Effects(scripts=[_joined(scanned.operands)])  # watch runs `sh -c` on the joined words


_XARGS = {
    **switches("-0 --null -p --interactive -r --no-run-if-empty -t --verbose -x --exit"),
    **switches("-o --open-tty --show-limits"),
    **valued("-a --arg-file -d --delimiter -E --eof -I --replace -L --max-lines -n --max-args"),
    **valued("-P --max-procs -s --max-chars --process-slot-var"),
}


@handles("xargs")
def xargs(name: str, args: list[str], context: Context) -> Effects:
    normalised = [_xargs_optional(word) for word in args]
    scanned = scan(normalised, _XARGS)
    command = scanned.operands or ["echo"]
    replace = scanned.values("-I", "--replace")
    if replace:
        marker = replace[-1]
        command = [DYNAMIC if marker in word else word for word in command]
    else:
        command = [*command, DYNAMIC]  # the words read from stdin are appended
    return Effects(argvs=[command])


def _xargs_optional(word: str) -> str:
    # `-i[R]` and `-l[N]` take an optional attached value: the same as `-I {}` / `-L 1`.
    if word == "-i":
        return "-I{}"
    if word.startswith("-i") and len(word) > 2:
        return "-I" + word[2:]
    if word == "-l":
        return "-L1"
    return word


@handles("script")
def script(name: str, args: list[str], context: Context) -> Effects:
    spec = {
        **switches("-a --append -e --return -f --flush -q --quiet -B -E -I -O -T"),
        **valued("-c --command -E --echo -o --output-limit -m --logging-format"),
        **valued("-T --log-timing -I --log-in -O --log-out -B --log-io"),
    }
    scanned = scan(args, spec)
    commands = scanned.values("-c", "--command")
    if not commands:
        return Effects.ask("script without -c starts a shell that reads commands from its input")
    return Effects(scripts=commands, writes=scanned.operands[:1])


@handles("busybox", "toybox")
def busybox(name: str, args: list[str], context: Context) -> Effects:
    return Effects(argvs=[args] if args else [])


_SSH_VALUE = valued("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w")
_SSH = {
    **_SSH_VALUE,
    **switches("-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y"),
}
_SSH_SAFE_OPTIONS = frozenset(
    {
        "connecttimeout",
        "batchmode",
        "loglevel",
        "serveraliveinterval",
        "serveralivecountmax",
        "port",
        "user",
    }
)


@handles("ssh")
def ssh(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(args, _SSH)
    for option, value in scanned.options:
        if option in ("-F", "-L", "-R", "-D", "-W", "-w", "-O", "-E", "-M", "-s", "-N"):
            return Effects.ask(
                f"ssh {option} forwards ports, reads a config or controls connections"
            )
        if option == "-o" and value.split("=", 1)[0].split()[0].lower() not in _SSH_SAFE_OPTIONS:
            return Effects.ask(
                f"ssh -o {value.split('=', 1)[0]} may run a local command (ProxyCommand, LocalCommand)"
            )
    if len(scanned.operands) < 2:
        return Effects.ask("ssh without a command opens a remote shell that reads its input")
    return Effects(scripts=[_joined(scanned.operands[1:])])  # the remote shell parses the words


_PARALLEL = {
    **valued("-j --jobs -n --max-args -N --halt -S --sshlogin"),
    **switches("-k --keep-order --tag --line-buffer --will-cite --no-notice"),
}


@handles("parallel")
def parallel(name: str, args: list[str], context: Context) -> Effects:
    scanned = scan(args, _PARALLEL)
    if scanned.has("-S", "--sshlogin"):
        return Effects.ask("parallel -S runs the commands on other machines")
    words = scanned.operands
    cut = next(
        (i for i, w in enumerate(words) if w in (":::", "::::", ":::+", "::::+")), len(words)
    )
    template = words[:cut]
    if not template:
        return Effects.ask("parallel without a command runs the lines it reads as commands")
    if any(is_dynamic(word) for word in template):
        return Effects.ask("parallel: the command template is computed at run time")
    # parallel substitutes each input into the template ({} or appended) and runs it with a shell.
    text = _joined(template)
    text = text.replace("{}", '"$PARALLEL_INPUT"') if "{" in text else text + ' "$PARALLEL_INPUT"'
    for placeholder in ("{.}", "{/}", "{//}", "{/.}", "{#}", "{%}"):
        text = text.replace(placeholder, '"$PARALLEL_INPUT"')
    if "{" in text:
        return Effects.ask(
            "parallel: the command template has replacement strings the guard does not read"
        )
    return Effects(scripts=[text])


@handles("find")
def find(name: str, args: list[str], context: Context) -> Effects:
    effects = Effects()
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((i for i in range(index + 1, len(args)) if args[i] in (";", "+")), len(args))
            effects.argvs.append([DYNAMIC if "{}" in w else w for w in args[index + 1 : end]])
            index = end + 1
            continue
        if word == "-delete":
            effects.reasons.append("find -delete deletes files")
        elif word in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            effects.writes.append(args[index + 1] if index + 1 < len(args) else DYNAMIC)
        index += 1
    return effects


# --- shells ----------------------------------------------------------------------------------

POSIX_SHELLS = frozenset({"sh", "bash", "dash", "ash", "ksh", "mksh", "ksh93", "rbash"})
OTHER_SHELLS = frozenset(
    {"zsh", "fish", "csh", "tcsh", "nu", "pwsh", "powershell", "elvish", "xonsh", "yash", "oksh"}
)
_SHELL_SWITCHES = frozenset("abefhkmnprtuvxBCEHPTl")


@handles(*POSIX_SHELLS)
def shell(name: str, args: list[str], context: Context) -> Effects:
    index, has_script = 0, False
    while index < len(args):
        word = args[index]
        if is_dynamic(word):
            return Effects.ask(f"{name}: a computed word stands where an option may be")
        if word in ("--", "-"):
            index += 1
            break
        if word in (
            "--login",
            "--noprofile",
            "--norc",
            "--posix",
            "--noediting",
            "--restricted",
            "--verbose",
        ):
            index += 1
            continue
        if word.startswith("--"):
            return Effects.ask(f"{name} {word} reads a startup file or changes how it runs")
        if word[:1] in "-+" and len(word) > 1:
            letters = word[1:]
            if letters in ("o", "O"):
                index += 2
                continue
            for letter in letters:
                if letter == "c":
                    has_script = True
                elif letter in "si":
                    return Effects.ask(f"{name} -{letter} reads commands from its input")
                elif letter not in _SHELL_SWITCHES:
                    return Effects.ask(f"{name} -{letter} is not an option the guard knows")
            index += 1
            continue
        break
    operands = args[index:]
    if has_script:
        if not operands or is_dynamic(operands[0]):
            return Effects.ask(f"{name} -c runs a script computed at run time")
        return Effects(scripts=[operands[0]])
    if operands:
        return Effects.ask(
            f"{name} runs the script file {operands[0]!r}, which the guard cannot check"
        )
    return Effects.ask(f"{name} reads commands from its input (a pipe, file or here-document)")


for _name in OTHER_SHELLS:
    HANDLERS[_name] = lambda name, args, context: Effects.ask(
        f"{name} is a shell whose language the guard does not parse"
    )


# --- interpreters ----------------------------------------------------------------------------

PYTHON_NAMES = re.compile(r"python[0-9.]*|pypy[0-9.]*")
_PYTHON = {**switches("-b -B -d -E -i -I -O -P -q -s -S -u -v -x -R"), **valued("-W -X")}
# `python -m MODULE` runs that module; these only read (json.tool pretty-prints its input).
READ_MODULES = frozenset({"json.tool"})


def python(name: str, args: list[str], context: Context) -> Effects:
    index = 0
    while index < len(args):
        word = args[index]
        if is_dynamic(word):
            return Effects.ask(f"{name}: a computed word stands where an option may be")
        if not word.startswith("-") or word == "-":
            break
        if word in ("--version", "--help"):
            return Effects()
        if word.startswith("--"):
            raise UnknownOption(word)
        index += 1
        letters = word[1:]
        for position, letter in enumerate(letters):
            attached = letters[position + 1 :]
            if letter == "c":
                return Effects.ask(f"{name} -c runs inline code, which the guard cannot check")
            if letter == "m":
                module = attached or (args[index] if index < len(args) else "")
                rest = args[index:] if attached else args[index + 1 :]
                return _python_module(name, module, rest, context)
            if letter in "VhH":
                return Effects()
            option = "-" + letter
            if option not in _PYTHON:
                raise UnknownOption(option)
            if _PYTHON[option]:
                index += 0 if attached else 1  # -W/-X take a value
                break
    operands = args[index:]
    if not operands or operands[0] == "-":
        return Effects.ask(f"{name} reads a program from its input")
    script_path = operands[0]
    if PurePosixPath(script_path).parts[-2:] == ("_wiki", "wiki_linter.py"):
        return mlwiki("mlwiki", ["lint", *operands[1:]], context)  # the wiki's lint entry point
    return Effects.ask(f"{name} runs the script {script_path!r}, which the guard cannot check")


def _python_module(name: str, module: str, rest: list[str], context: Context) -> Effects:
    top = module.split(".", 1)[0]
    cwd = context.cwd or os.getcwd()
    if module in READ_MODULES and any(
        os.path.exists(os.path.join(cwd, top + ext)) for ext in ("", ".py")
    ):
        return Effects.ask(
            f"{name} -m {module} would import {top} from the working directory first"
        )
    if module == "mlwiki":
        return mlwiki("mlwiki", rest, context)
    if module in READ_MODULES:
        return Effects()
    return Effects.ask(f"{name} -m {module} runs a module the guard cannot check")


_INTERPRETERS = (
    "perl ruby node nodejs deno bun php lua luajit tclsh wish Rscript R julia java jshell groovy "
    "scala osascript expect irb erl elixir iex gdb lldb make cmake npx npm pnpm yarn uv uvx pipx "
    "pip pip3 go cargo rustc gcc cc clang docker podman nerdctl crictl ctr terraform pulumi ansible "
    "ansible-playbook vim vi nvim emacs nano ed ex"
)
for _name in _INTERPRETERS.split():
    HANDLERS[_name] = lambda name, args, context: Effects.ask(
        f"{name} runs code or programs the guard cannot check"
    )

_NETWORK = "curl wget http https xh httpie grpcurl nc ncat netcat socat telnet ftp sftp scp rsync aria2c lynx w3m links openssl websocat"
for _name in _NETWORK.split():
    HANDLERS[_name] = lambda name, args, context: Effects.ask(
        f"{name} is a network client: it can reach the Kubernetes API server or Google APIs directly"
    )

_PAGERS = "less more most man info pg view"
for _name in _PAGERS.split():
    HANDLERS[_name] = lambda name, args, context: Effects.ask(
        f"{name} is a pager, which can run commands"
    )

_DYNAMIC_CODE = {
    "eval": "eval runs a string as shell code",
    "source": "source runs a file as shell code",
    ".": ". runs a file as shell code",
    "alias": "alias changes what command names run",
    "trap": "trap registers shell code to run later",
    "enable": "enable can load builtins from a shared object",
    "let": "let evaluates arithmetic, which can run commands hidden in variables",
    "shopt": "shopt changes how the shell expands words (aliases, globs)",
    "kill": "kill signals processes",
}
for _name, _reason in _DYNAMIC_CODE.items():
    HANDLERS[_name] = lambda name, args, context, reason=_reason: Effects.ask(reason)


# --- local utilities that only read ------------------------------------------------------------

_PLAIN_READS = (
    "cat tac nl head tail wc cut tr column fold fmt paste join comm rev expand unexpand grep egrep "
    "fgrep zgrep zcat bzcat xzcat ls dir pwd echo true false test [ : basename dirname realpath "
    "readlink stat file du df id whoami groups uname nproc free uptime cal seq sleep wait jobs "
    "printenv which type whereis jq base64 base32 od hexdump strings md5sum sha1sum "
    "sha256sum sha512sum cksum cmp diff numfmt tree yes cd pushd popd dirs shift exit return break "
    "continue unset getopts umask locale ps pgrep netstat lsof mktemp tput clear set "
    "disown bg fg"
)
for _name in _PLAIN_READS.split():
    HANDLERS[_name] = lambda name, args, context: Effects()


@handles("hash")
def hash_builtin(name: str, args: list[str], context: Context) -> Effects:
    if any(w.startswith("-") and "p" in w[1:] for w in args):
        return Effects.ask("hash -p binds a command name to any program")
    return Effects()


@handles("ss")
def socket_stats(name: str, args: list[str], context: Context) -> Effects:
    if any(
        w in ("-K", "--kill") or (w.startswith("-") and not w.startswith("--") and "K" in w)
        for w in args
    ):
        return Effects.ask("ss -K closes sockets")
    return Effects()


@handles("printf")
def printf(name: str, args: list[str], context: Context) -> Effects:
    if args[:1] == ["-v"] and len(args) > 1:
        return Effects(assignments=[(args[1], DYNAMIC)])  # `printf -v NAME` sets a variable
    return Effects()


@handles("read", "mapfile", "readarray")
def read_builtin(name: str, args: list[str], context: Context) -> Effects:
    if name != "read" and any(w.startswith("-C") or w == "-C" for w in args):
        return Effects.ask(f"{name} -C runs a callback as shell code")
    # The variables `read` fills are named by its operands; each is set to input from stdin.
    names = [w for w in args if not w.startswith("-") and w.isidentifier()]
    return Effects(assignments=[(variable, DYNAMIC) for variable in names])


@handles("date")
def date(name: str, args: list[str], context: Context) -> Effects:
    if any(w.split("=", 1)[0] in ("-s", "--set") or w.startswith("-s") for w in args):
        return Effects.ask("date -s sets the system clock")
    return Effects()


@handles("hostname")
def hostname(name: str, args: list[str], context: Context) -> Effects:
    if any(not w.startswith("-") for w in args):
        return Effects.ask("hostname NAME sets the host name")
    return Effects()


@handles("sort")
def sort(name: str, args: list[str], context: Context) -> Effects:
    if any(w.startswith("--compress-program") for w in args):
        return Effects.ask("sort --compress-program runs a program")
    writes = [w[len("--output=") :] for w in args if w.startswith("--output=")]
    writes += [w[2:] for w in args if w.startswith("-o") and len(w) > 2]
    writes += [
        args[i + 1] if i + 1 < len(args) else DYNAMIC
        for i, w in enumerate(args)
        if w in ("-o", "--output")
    ]
    return Effects(writes=writes)


@handles("uniq")
def uniq(name: str, args: list[str], context: Context) -> Effects:
    operands = _operands(args, valued("-f --skip-fields -s --skip-chars -w --check-chars"))
    return Effects(writes=operands[1:2])  # `uniq IN OUT` writes OUT


@handles("xxd")
def xxd(name: str, args: list[str], context: Context) -> Effects:
    operands = _operands(args, valued("-c -g -l -o -s -n -C -cols -groupsize -len -seek"))
    return Effects(writes=operands[1:2])


@handles("tee")
def tee(name: str, args: list[str], context: Context) -> Effects:
    return Effects(writes=[w for w in args if not w.startswith("-") or w == "-"])


@handles("yq")
def yq(name: str, args: list[str], context: Context) -> Effects:
    if any(w in ("-i", "--inplace", "--in-place") or w.startswith("--inplace") for w in args):
        return Effects.ask("yq -i rewrites files in place")
    return Effects()


@handles("rg", "ag")
def ripgrep(name: str, args: list[str], context: Context) -> Effects:
    if any(w == "--pre" or w.startswith("--pre=") for w in args):
        return Effects.ask(f"{name} --pre runs a program on every file")
    return Effects()


@handles("sed", "gsed")
def sed(name: str, args: list[str], context: Context) -> Effects:
    concern = sed_concern(args)
    return Effects.ask(f"sed {concern}") if concern else Effects()


@handles("awk", "gawk", "mawk", "nawk", "busybox-awk")
def awk(name: str, args: list[str], context: Context) -> Effects:
    concern = awk_concern(args)
    return Effects.ask(f"{name} {concern}") if concern else Effects()


@handles("git")
def git(name: str, args: list[str], context: Context) -> Effects:
    # Even `git status` runs programs the repository's configuration names (core.fsmonitor,
    # diff drivers, clean filters), and that configuration is a file an agent can edit.
    return Effects.ask(
        "git runs programs named in the repository's configuration (fsmonitor, diff drivers, filters)"
    )


# --- helpers ---------------------------------------------------------------------------------


def _leading_assignments(words: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """`A=1 B=2 cmd args` (as sudo and env take them) → the assignments and the command."""
    assignments = []
    index = 0
    while index < len(words) and not is_dynamic(words[index]) and "=" in words[index]:
        variable, value = words[index].split("=", 1)
        if not variable.isidentifier():
            break
        assignments.append((variable, value))
        index += 1
    return assignments, list(words[index:])


def _operands(args: Sequence[str], spec: Mapping[str, bool]) -> list[str]:
    operands, skip = [], False
    for word in args:
        if skip:
            skip = False
        elif word.startswith("-") and word != "-":
            skip = spec.get(word, False)
        else:
            operands.append(word)
    return operands


def _joined(words: Sequence[str]) -> str:
    if any(is_dynamic(word) for word in words):
        return "$GUARD_COMPUTED_WORD"  # a computed word: the joined script's command is unknown
    return " ".join(words)


def _shown(argv: Sequence[str]) -> str:
    return " ".join("…" if is_dynamic(word) else word for word in argv)


def is_path_qualified(word: str) -> bool:
    return "/" in word


TRUSTED_BIN_DIRS = frozenset(
    {
        "/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin", "/snap/bin",
        "/opt/homebrew/bin", "/usr/lib/google-cloud-sdk/bin", "/opt/google-cloud-sdk/bin",
    }
)  # fmt: skip


def untrusted_path(word: str) -> Optional[str]:
    """Why a path-qualified program may not be the real tool its name says (None: trusted)."""
    path = PurePosixPath(word)
    parent = str(path.parent)
    if parent in TRUSTED_BIN_DIRS or parent.endswith(
        ("/.venv/bin", "/venv/bin", "google-cloud-sdk/bin")
    ):
        return None
    if parent in (".venv/bin", "venv/bin"):
        return None
    return f"{word} is a program outside the system and virtualenv bin directories"


__all__ = ["Context", "Effects", "Scanned", "judge_program"]
