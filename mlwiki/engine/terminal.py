"""Is a person at this process's terminal? The check behind the approval prompt.

Threat model. An agent that runs `mlwiki` through its shell tool must not be able to answer
the approval prompt itself. Without a terminal that is easy to refuse: stdin is a pipe. The
harder case is a pseudo-terminal the agent opens itself — `printf 'yes\\n' | script -qec 'mlwiki
action …' /dev/null`, Python's `pty.spawn`, `expect`, `unbuffer` — where mlwiki does see a
terminal, but the program at its other end types what the agent wants. So the prompt is shown
only when all of this holds (Linux, from /proc):

1. the process has a controlling terminal (`/dev/tty` opens) and stdin is that terminal;
2. it is in the terminal's foreground process group;
3. if the terminal is a pseudo-terminal, its master side is held by one of our own ancestors
   (found through `/proc/PID/fdinfo` of a `/dev/ptmx` descriptor, whose `tty-index` names the
   pty), and every process between us and that holder reads the same terminal (an agent's
   shell tool reads a pipe, so `mlwiki … < /dev/tty` run by the agent fails here);
4. the holder is driven by a person: either a terminal server (sshd, login, tmux, screen, a
   terminal emulator: TERMINAL_SERVERS, its executable root's and in place), or a program
   whose own input is again a terminal that passes these checks (`script` or `sudo` run by a
   person in their terminal). Any other holder — `script`, `expect` or Python's `pty` fed by a
   pipe, or daemonised with `setsid … < /dev/null` to look like a server — is automation.

Before reading the answer, input typed ahead of the prompt is discarded (`tcflush`), and the
answer is read from the terminal itself, never from stdin.

Limits. This tells a terminal a person opened from one an automated program opened, by how
processes are connected; it cannot see who types. An agent that can drive a real terminal
server — `tmux send-keys` into a session, a terminal emulator it controls, TIOCSTI injection
where the kernel still allows it (`dev.tty.legacy_tiocsti`) — looks like a person; the hook
asks before such commands (tmux, screen, expect are not reads), and `--approve DIGEST` remains
the way to approve without a prompt. IDE terminals (VS Code and its forks, where an agent may
type too) are not terminal servers here, so there the prompt is refused. An agent running as
root can fake any of this.
Without /proc (macOS) the holder cannot be found, so the prompt is refused there and
`--approve DIGEST` is the way to approve.
"""

from __future__ import annotations

import os
import stat
import termios
from dataclasses import dataclass
from typing import Optional

PTY_SLAVE_MAJORS = range(136, 144)  # UNIX98 pseudo-terminal slaves (Linux devices.txt)
MAX_ANCESTORS = 64
MAX_TERMINAL_HOPS = 4  # script inside sudo inside tmux …
MAX_ANSWER_BYTES = 256
# Programs that hold a terminal for a person: remote logins, consoles, multiplexers, emulators.
TERMINAL_SERVERS = frozenset(
    {
        "sshd", "sshd-session", "dropbear", "mosh-server", "login", "agetty", "getty", "tmux",
        "screen", "gnome-terminal-server", "konsole", "xterm", "uxterm", "urxvt", "rxvt",
        "alacritty", "kitty", "wezterm-gui", "wezterm-mux-server", "foot", "tilix",
        "xfce4-terminal", "mate-terminal", "lxterminal", "qterminal", "terminology", "st",
        "ptyxis-agent", "ghostty", "iTerm2", "Terminal",
    }
)  # fmt: skip


class NotAPerson(Exception):
    """The terminal is missing or driven by a program; the message says which check failed."""


@dataclass
class HumanTerminal:
    fd: int
    device: str  # e.g. /dev/pts/3, for the audit log
    holder: str  # e.g. "sshd (pid 812)", or "" for a non-pseudo terminal

    def ask(self, prompt: str) -> str:
        """Show `prompt` and read one line typed after it, from the terminal itself."""
        os.write(self.fd, prompt.encode())
        termios.tcflush(self.fd, termios.TCIFLUSH)  # drop anything typed (or injected) before
        data = b""
        while not data.endswith(b"\n") and len(data) < MAX_ANSWER_BYTES:
            chunk = os.read(self.fd, 1)
            if not chunk:
                raise EOFError
            data += chunk
        return data.decode("utf-8", "replace")

    def write(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> None:
        os.close(self.fd)


def open_human_terminal(proc: str = "/proc") -> HumanTerminal:
    """The controlling terminal, when a person drives it; NotAPerson says why not."""
    if not os.path.isdir(os.path.join(proc, "self")):
        raise NotAPerson("this system has no /proc, so who holds the terminal cannot be checked")
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        raise NotAPerson("the process has no controlling terminal") from None
    try:
        return _check(fd, proc)
    except BaseException:
        os.close(fd)
        raise


def _check(fd: int, proc: str) -> HumanTerminal:
    me = os.getpid()
    device = _controlling_terminal(proc, me)
    if device is None:
        raise NotAPerson("the process has no controlling terminal")
    try:
        stdin = os.fstat(0)
    except OSError:
        raise NotAPerson("stdin is closed") from None
    if not stat.S_ISCHR(stdin.st_mode) or stdin.st_rdev != device:
        raise NotAPerson(
            "stdin is not the controlling terminal (a pipe or file feeds this process)"
        )
    if os.tcgetpgrp(fd) != os.getpgrp():
        raise NotAPerson("the process is not in the terminal's foreground")
    name = _device_name(device)
    holder = _person_at(proc, me, device, hops=0)
    return HumanTerminal(fd, name, holder)


def _person_at(proc: str, start: int, device: int, hops: int) -> str:
    """Check the terminal `device`, which process `start` reads; return its holder's name."""
    if os.major(device) not in PTY_SLAVE_MAJORS:
        return ""  # a console or serial line: no program sits at its other end
    if hops >= MAX_TERMINAL_HOPS:
        raise NotAPerson("terminals nest too deeply to check")
    index = (os.major(device) - PTY_SLAVE_MAJORS.start) * 256 + os.minor(device)
    for pid in _ancestors(proc, start):
        if _holds_pty(proc, pid, index):
            return _judge_holder(proc, pid, hops)
        if _stdin_device(proc, pid) != device:
            raise NotAPerson(
                f"{_comm(proc, pid)} (pid {pid}), which started this process, does not read the "
                "terminal: an automated program, not a person, is in between"
            )
    raise NotAPerson(
        f"the pseudo-terminal {_device_name(device)} was not opened by a program that started "
        "this process, so a person at it cannot be confirmed"
    )


def _judge_holder(proc: str, pid: int, hops: int) -> str:
    name = f"{_comm(proc, pid)} (pid {pid})"
    device = _stdin_device(proc, pid)
    if device is not None and _is_terminal(device):
        _person_at(proc, pid, device, hops + 1)  # e.g. `script` run by a person at a terminal
        return name
    executable = _readlink(os.path.join(proc, str(pid), "exe"))
    if os.path.basename(executable) in TERMINAL_SERVERS and _system_file(executable):
        return name
    link = _readlink(os.path.join(proc, str(pid), "fd", "0")) or "unknown"
    raise NotAPerson(
        f"the terminal was opened by {name}, running {executable or 'an unknown program'} with "
        f"input {link}: an automated program (script, expect, a pty library), not a person at a "
        "terminal, answers it"
    )


def _system_file(path: str) -> bool:
    """Installed by the system: owned by root, writable by nobody else, in a root directory."""
    try:
        info, folder = os.stat(path), os.stat(os.path.dirname(path))
    except OSError:
        return False
    return all(i.st_uid == 0 and not i.st_mode & 0o022 for i in (info, folder))


def _ancestors(proc: str, pid: int) -> list[int]:
    found: list[int] = []
    current = _parent(proc, pid)
    while current and current not in found and len(found) < MAX_ANCESTORS:
        found.append(current)
        current = _parent(proc, current)
    return found


def _stat_fields(proc: str, pid: int) -> Optional[list[str]]:
    try:
        with open(os.path.join(proc, str(pid), "stat"), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return text.rsplit(")", 1)[-1].split()  # the command name may contain spaces or ')'


def _parent(proc: str, pid: int) -> int:
    fields = _stat_fields(proc, pid)
    return int(fields[1]) if fields and len(fields) > 1 else 0


def _controlling_terminal(proc: str, pid: int) -> Optional[int]:
    fields = _stat_fields(proc, pid)
    if not fields or len(fields) < 5:
        return None
    tty_nr = int(fields[4])
    if tty_nr == 0:
        return None
    return os.makedev((tty_nr >> 8) & 0xFFF, (tty_nr & 0xFF) | ((tty_nr >> 12) & 0xFFF00))


def _stdin_device(proc: str, pid: int) -> Optional[int]:
    try:
        info = os.stat(os.path.join(proc, str(pid), "fd", "0"))
    except OSError:
        return None
    return info.st_rdev if stat.S_ISCHR(info.st_mode) else None


def _holds_pty(proc: str, pid: int, index: int) -> bool:
    fd_dir = os.path.join(proc, str(pid), "fd")
    try:
        descriptors = os.listdir(fd_dir)
    except OSError:
        return False
    for descriptor in descriptors:
        if _readlink(os.path.join(fd_dir, descriptor)) not in ("/dev/ptmx", "/dev/pts/ptmx"):
            continue
        try:
            with open(os.path.join(proc, str(pid), "fdinfo", descriptor), encoding="utf-8") as f:
                for line in f:
                    if line.startswith("tty-index:") and int(line.split(":", 1)[1]) == index:
                        return True
        except (OSError, ValueError):
            continue
    return False


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def _comm(proc: str, pid: int) -> str:
    try:
        with open(os.path.join(proc, str(pid), "comm"), encoding="utf-8", errors="replace") as f:
            return f.read().strip() or "?"
    except OSError:
        return "?"


def _is_terminal(device: int) -> bool:
    major = os.major(device)
    return major == 4 or major in PTY_SLAVE_MAJORS or (major, os.minor(device)) == (5, 1)


def _device_name(device: int) -> str:
    if os.major(device) in PTY_SLAVE_MAJORS:
        return f"/dev/pts/{(os.major(device) - PTY_SLAVE_MAJORS.start) * 256 + os.minor(device)}"
    return f"char device {os.major(device)}:{os.minor(device)}"
