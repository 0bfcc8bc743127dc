"""Pipelines, lists and compound commands (bash's execute_cmd.c): ``|``, ``&&``, ``||``,
``( )``, ``{ }``, ``for``, ``for (( ))``, ``while``/``until``, ``if``, ``case``, function
definitions, ``(( ))`` and ``[[ ]]``. Each loop turn takes a step of the line's budget."""

from __future__ import annotations

from labsim.shell import conditions, expand
from labsim.shell import messages as msg
from labsim.shell.executor import Executor, Input, LoopControl, Sink
from labsim.shell.syntax import ast


def run(shell: Executor, command: ast.Command, sink: Sink, stdin: Input | None) -> int:
    if isinstance(command, ast.Pipeline):
        return pipeline(shell, command, sink, stdin)
    if isinstance(command, ast.AndOr):
        status = shell.run(command.first, sink, stdin)
        for operator, following in command.rest:
            shell.session.last_status = status
            if (status == 0) == (operator == "&&"):
                status = shell.run(following, sink, stdin)
        return status
    if isinstance(command, ast.Group):
        if command.subshell:
            return shell.subshell(lambda: shell.program(command.body, sink, stdin))
        return shell.program(command.body, sink, stdin)
    if isinstance(command, ast.For):
        return for_loop(shell, command, sink, stdin)
    if isinstance(command, ast.ArithmeticFor):
        return arithmetic_for(shell, command, sink, stdin)
    if isinstance(command, ast.While):
        return while_loop(shell, command, sink, stdin)
    if isinstance(command, ast.If):
        for condition, body in command.branches:
            if shell.program(condition, sink, stdin) == 0:
                return shell.program(body, sink, stdin)
        return shell.program(command.otherwise, sink, stdin) if command.otherwise else 0
    if isinstance(command, ast.Case):
        return case(shell, command, sink, stdin)
    if isinstance(command, ast.FunctionDefinition):
        shell.session.functions[command.name] = command.body
        return 0
    if isinstance(command, ast.ArithmeticCommand):
        shell.budget.step()
        try:
            return 0 if shell.evaluate(command.expression) else 1
        except expand.ExpansionError as error:
            sink.err.append(error.line)
            return 1
    if isinstance(command, ast.TestCommand):
        shell.budget.step()
        return conditions.double_brackets(shell, command, sink)
    if isinstance(command, ast.Timed):
        return timed(shell, command, sink, stdin)
    if isinstance(command, ast.Unsupported):
        shell.budget.step()
        sink.err.append(msg.notice(command.what) + "\n")
        return 1
    raise TypeError(f"not a command: {command!r}")


def pipeline(shell: Executor, command: ast.Pipeline, sink: Sink, stdin: Input | None) -> int:
    """Each command's standard output is the next one's input. In bash every command of a
    pipeline of two or more runs in a subshell: what they set does not stay."""
    status = 0
    if len(command.commands) == 1:
        status = shell.run(command.commands[0], sink, stdin)
    else:
        given = stdin
        for index, stage in enumerate(command.commands):
            out = Sink(err=sink.err) if index < len(command.commands) - 1 else sink
            status = shell.subshell(lambda: shell.run(stage, out, given))  # noqa: B023
            given = Input(out.content()) if out is not sink else None
    return (0 if status else 1) if command.negated else status


def _loop_turn(shell: Executor, body: ast.Program, sink: Sink, stdin: Input | None
               ) -> tuple[int, str]:
    """One turn: the body's status, and "break" or "continue" to the loop around."""
    shell.budget.step()
    try:
        return shell.program(body, sink, stdin), ""
    except LoopControl as control:
        if control.levels > 1:
            control.levels -= 1
            raise
        return shell.session.last_status, control.kind


def for_loop(shell: Executor, command: ast.For, sink: Sink, stdin: Input | None) -> int:
    try:
        values = expand.words(shell, command.words) if command.words is not None \
            else list(shell.positional())
    except expand.ExpansionError as error:
        sink.err.append(error.line)
        return 1
    status = 0
    shell.loops += 1
    try:
        for value in values:
            shell.assign(command.variable, value)
            status, control = _loop_turn(shell, command.body, sink, stdin)
            if control == "break":
                break
    finally:
        shell.loops -= 1
    return status


def arithmetic_for(shell: Executor, command: ast.ArithmeticFor, sink: Sink,
                   stdin: Input | None) -> int:
    status = 0
    shell.loops += 1
    try:
        if command.init is not None:
            shell.evaluate(command.init)
        while command.condition is None or shell.evaluate(command.condition):
            status, control = _loop_turn(shell, command.body, sink, stdin)
            if control == "break":
                break
            if command.update is not None:
                shell.evaluate(command.update)
    except expand.ExpansionError as error:
        sink.err.append(error.line)
        return 1
    finally:
        shell.loops -= 1
    return status


def while_loop(shell: Executor, command: ast.While, sink: Sink, stdin: Input | None) -> int:
    status = 0
    shell.loops += 1
    try:
        while True:
            shell.budget.step()
            passed = shell.program(command.condition, sink, stdin) == 0
            if passed == command.until:
                break
            status, control = _loop_turn(shell, command.body, sink, stdin)
            if control == "break":
                break
    finally:
        shell.loops -= 1
    return status


def case(shell: Executor, command: ast.Case, sink: Sink, stdin: Input | None) -> int:
    try:
        value = expand.single(shell, command.word)
        for patterns, body in command.items:
            for pattern in patterns:
                if expand.pattern(shell, pattern).fullmatch(value):
                    return shell.program(body, sink, stdin)
    except expand.ExpansionError as error:
        sink.err.append(error.line)
        return 1
    return 0


def timed(shell: Executor, command: ast.Timed, sink: Sink, stdin: Input | None) -> int:
    """bash 5.2's default TIMEFORMAT ("\\nreal\\t%3lR\\nuser\\t%3lU\\nsys\\t%3lS"): real is
    how far the command moved the session's clock; CPU times are not modelled (small fixed
    figures, labsim.shell.commands.time_keyword)."""
    from labsim.shell.commands.time_keyword import SYS_SECONDS, USER_SECONDS, minutes

    start = shell.session.clock
    status = shell.run(command.command, sink, stdin)
    empty = isinstance(command.command, ast.Simple) and not command.command.words
    user, system = (0.0, 0.0) if empty else (USER_SECONDS, SYS_SECONDS)
    sink.err.append(f"\nreal\t{minutes(shell.session.clock - start)}\nuser\t{minutes(user)}\n"
                    f"sys\t{minutes(system)}\n")
    return status
