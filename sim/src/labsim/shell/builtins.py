"""Bash's builtins that act on the shell itself (bash 5.2, builtins/*.def): variables
(export, unset, local, declare, readonly, read, shift, set), control (break, continue, exit,
return), eval and source, echo, test and [, type, let and ``:``. Messages as bash prints them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from labsim.shell import conditions, expand, registry
from labsim.shell import messages as msg
from labsim.shell.executor import (
    Executor,
    ExitShell,
    Input,
    LoopControl,
    ReturnFromFunction,
    Sink,
)

Builtin = Callable[[Executor, list[str], Sink, "Input | None"], int]

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def colon(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    return 0


def echo(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    """echo [-neE] ARG...: options only while every letter is one of n, e, E."""
    args, newline, escapes = argv[1:], True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for letter in args[0][1:]:
            newline = newline and letter != "n"
            escapes = True if letter == "e" else (False if letter == "E" else escapes)
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = _echo_escapes(text)
        if stop:
            sink.write(text)
            return 0
    sink.write(text + ("\n" if newline else ""))
    return 0


_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t", "v": "\v", "\\": "\\"}


def _byte(value: int) -> str:
    """One byte as text: beyond ASCII, Python's surrogate escape, which the shell's streams
    encode back into that very byte (labsim.shell.executor.Sink)."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def _echo_escapes(text: str) -> tuple[str, bool]:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            code = text[i + 1]
            if code == "c":
                return "".join(out), True
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                i += 2
                continue
            if code == "0":
                digits = re.match(r"[0-7]{0,3}", text[i + 2:])
                assert digits is not None
                out.append(_byte(int(digits.group() or "0", 8) & 0xFF))
                i += 2 + len(digits.group())
                continue
            if code == "x":
                digits = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2:])
                if digits:
                    out.append(_byte(int(digits.group(), 16)))
                    i += 2 + len(digits.group())
                    continue
        out.append(text[i])
        i += 1
    return "".join(out), False


def export(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    """export, local, declare, typeset, readonly: NAME[=VALUE]... (attributes are not kept;
    a function's locals are the shell's variables)."""
    status = 0
    args = [a for a in argv[1:] if not re.fullmatch(r"[-+][a-zA-Z]+", a)]
    if len(args) != len(argv) - 1 and argv[0] in ("declare", "typeset", "local") and \
            any(set(a[1:]) - set("rxig") for a in argv[1:] if re.fullmatch(r"[-+][a-zA-Z]+", a)):
        sink.err.append(msg.tool_not_simulated(argv[0], "these options") + "\n")
        return 1
    if argv[0] == "local" and not shell.positional_stack[1:]:
        sink.err.append("bash: local: can only be used in a function\n")
        return 1
    if not args and argv[0] in ("export", "declare", "typeset", "readonly"):
        for name, value in sorted(shell.session.variables.items()):
            prefix = {"export": "declare -x ", "readonly": "declare -r "}.get(argv[0], "")
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            sink.write(f"{prefix}{name}=\"{quoted}\"\n")
        return 0
    for arg in args:
        name, equals, value = arg.partition("=")
        append = name.endswith("+")
        name = name.rstrip("+") if append else name
        if not NAME.match(name):
            sink.err.append(f"bash: {argv[0]}: `{arg}': not a valid identifier\n")
            status = 1
            continue
        if equals:
            old = shell.session.variables.get(name, "") if append else ""
            shell.session.variables[name] = old + value
        elif argv[0] == "local":
            shell.session.variables.setdefault(name, "")
    return status


def unset(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    status = 0
    functions = "-f" in argv[1:]
    for name in (a for a in argv[1:] if a not in ("-v", "-f")):
        if not NAME.match(name):
            sink.err.append(f"bash: unset: `{name}': not a valid identifier\n")
            status = 1
        elif functions:
            shell.session.functions.pop(name, None)
        elif name in shell.session.variables:
            del shell.session.variables[name]
        else:
            shell.session.functions.pop(name, None)
    return status


def set_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    """set -- ARG... sets the positional parameters; the options (set -e, set -x, -o
    pipefail) are not simulated."""
    args = argv[1:]
    if not args:
        for name, value in sorted(shell.session.variables.items()):
            sink.write(f"{name}={_quote(value)}\n")
        return 0
    if args[0] == "--":
        shell.positional_stack[-1] = args[1:]
        return 0
    if args[0].startswith(("-", "+")):
        sink.err.append(msg.notice(f"set {' '.join(args)}: shell options", plural=True)
                        + "\n")
        return 1
    shell.positional_stack[-1] = args
    return 0


def _quote(value: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_./:=@%+-]*", value) and value:
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def shift(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    try:
        count = int(argv[1]) if len(argv) > 1 else 1
    except ValueError:
        sink.err.append(f"bash: shift: {argv[1]}: numeric argument required\n")
        return 1
    positional = shell.positional_stack[-1]
    if count < 0 or count > len(positional):
        return 1
    shell.positional_stack[-1] = positional[count:]
    return 0


def read(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    """read [-r] [NAME...]: one line of standard input split into the names (REPLY if
    none), the last taking the rest."""
    args = argv[1:]
    raw = False
    while args and args[0].startswith("-") and args[0] != "-":
        if args[0] == "-r":
            raw = True
            args = args[1:]
        else:
            sink.err.append(msg.tool_not_simulated("read", args[0]) + "\n")
            return 1
    names = args or ["REPLY"]
    for name in names:
        if not NAME.match(name):
            sink.err.append(f"bash: read: `{name}': not a valid identifier\n")
            return 1
    line = stdin.line() if stdin is not None else None
    if line is None:
        for name in names:
            shell.session.variables[name] = ""
        return 1
    if not raw:
        line = re.sub(r"\\(.)", r"\1", line)
    if names == ["REPLY"] and not args:
        shell.session.variables["REPLY"] = line
        return 0
    fields = line.strip(" \t").split(None, len(names) - 1) if line.strip(" \t") else []
    for index, name in enumerate(names):
        shell.session.variables[name] = fields[index] if index < len(fields) else ""
    return 0


def _count(name: str, argv: list[str], sink: Sink) -> int | None:
    if len(argv) < 2:
        return 1
    try:
        value = int(argv[1])
    except ValueError:
        sink.err.append(f"bash: {name}: {argv[1]}: numeric argument required\n")
        return None
    if value < 1:
        sink.err.append(f"bash: {name}: {argv[1]}: loop count out of range\n")
        return None
    return value


def loop_control(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    if not shell.loops:
        sink.err.append(f"bash: {argv[0]}: only meaningful in a `for', `while', or `until' "
                        "loop\n")
        return 0
    levels = _count(argv[0], argv, sink)
    if levels is None:
        return 1
    raise LoopControl(min(levels, shell.loops), argv[0])


def exit_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    status = shell.session.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sink.err.append(f"bash: exit: {argv[1]}: numeric argument required\n")
            status = 2
    raise ExitShell(status)


def return_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    if not shell.positional_stack[1:]:
        sink.err.append("bash: return: can only `return' from a function or sourced script\n")
        return 2
    status = shell.session.last_status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            sink.err.append(f"bash: return: {argv[1]}: numeric argument required\n")
            status = 2
    raise ReturnFromFunction(status)


def eval_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    shell.enter()
    try:
        return shell.line(" ".join(argv[1:]), sink, stdin) if argv[1:] else 0
    finally:
        shell.depth -= 1


def source(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    from labsim.content import model
    from labsim.shell.commands.textutils import read_file

    if len(argv) < 2:
        sink.err.append(f"bash: {argv[0]}: filename argument required\n")
        return 2
    data = read_file(shell.session, argv[1])
    if data is None:
        sink.err.append(f"bash: {argv[1]}: No such file or directory\n")
        return 1
    if data.size > 1 << 20:
        sink.err.append(msg.tool_not_simulated(argv[0], f"a script of {data.size} bytes")
                        + "\n")
        return 2
    shell.enter()
    shell.positional_stack.append(argv[2:] or shell.positional())
    try:
        return shell.line(model.read(data, 0, data.size).decode(errors="replace"), sink, stdin)
    except ReturnFromFunction as leave:
        return leave.status
    finally:
        shell.positional_stack.pop()
        shell.depth -= 1


def test(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    return conditions.test(shell, argv, sink)


def printf_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    """printf [-v VAR] FORMAT [ARGUMENT]... (labsim.shell.printf)."""
    from labsim.shell import printf

    args = argv[1:]
    target = None
    if args[:1] == ["-v"] and len(args) > 1:
        target, args = args[1], args[2:]
        if not NAME.match(target):
            sink.err.append(f"bash: printf: `{target}': not a valid identifier\n")
            return 2
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sink.err.append("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    try:
        text, errors = printf.format_all(args[0], args[1:])
    except printf.PrintfError as error:
        prefix = "bash: printf: " if error.simulated else "labsim: printf: "
        sink.err.append(prefix + error.message + "\n")
        return 1
    for message in errors:
        sink.err.append(f"bash: printf: {message}\n")
    if target is not None:
        shell.session.variables[target] = text
    else:
        sink.write(text)
    return 1 if errors else 0


def let(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    if len(argv) < 2:
        sink.err.append("bash: let: expression expected\n")
        return 1
    value = 0
    for text in argv[1:]:
        expression = shell.parse_arithmetic(text)
        if expression is None:
            sink.err.append(msg.tool_not_simulated("let", f"{text}: this expression") + "\n")
            return 1
        try:
            value = shell.evaluate(expression)
        except expand.ExpansionError as error:
            sink.err.append(error.line)
            return 1
    return 0 if value else 1


def type_builtin(shell: Executor, argv: list[str], sink: Sink, stdin: Input | None) -> int:
    status = 0
    for name in argv[1:]:
        if name in BUILTINS or name in ("cd", "pwd", "true", "false", "time"):
            sink.write(f"{name} is a shell {'keyword' if name == 'time' else 'builtin'}\n")
        elif name in shell.session.functions:
            sink.write(f"{name} is a function\n")
        elif name in registry.commands():
            where = "/usr/sbin/" if name in SBIN else "/usr/bin/"
            sink.write(f"{name} is {name if name.startswith('/') else where + name}\n")
        else:
            sink.err.append(f"bash: type: {name}: not found\n")
            status = 1
    return status


# bash 5.2's other builtins: labsim does not run them (its notice, not "command not found").
_UNSIMULATED_BUILTINS_TEXT = """
    alias bg bind builtin caller cd command compgen complete compopt coproc dirs disown enable
    exec fc fg getopts hash help history jobs kill logout mapfile popd pushd readarray suspend
    times trap ulimit umask unalias wait shopt
"""
UNSIMULATED_BUILTINS = frozenset(_UNSIMULATED_BUILTINS_TEXT.split())

# The commands Debian 12 installs in /usr/sbin (root's PATH finds them there first); the
# others are in /usr/bin.
SBIN = {"zpool", "zfs", "zdb", "ip", "sysctl", "iptables", "iptables-restore", "iptables-save",
        "ip6tables-save", "nft", "sshd"}

BUILTINS: dict[str, Builtin] = {
    ":": colon,
    "echo": echo,
    "export": export,
    "local": export,
    "declare": export,
    "typeset": export,
    "readonly": export,
    "unset": unset,
    "set": set_builtin,
    "shift": shift,
    "read": read,
    "break": loop_control,
    "continue": loop_control,
    "exit": exit_builtin,
    "return": return_builtin,
    "eval": eval_builtin,
    "source": source,
    ".": source,
    "test": test,
    "[": test,
    "let": let,
    "printf": printf_builtin,
    "type": type_builtin,
}
