"""tree-sitter-bash's concrete tree (labsim.shell.syntax.cst) to the shell's AST (ast).

The one converter both parsers feed. It also mends the places where tree-sitter-bash 0.25's
tree does not follow bash's grammar (bash.y of bash 5.2):

* redirections after the last command of a list or pipeline (``a && b > f``, ``a | b < f``)
  come attached to the whole list; bash gives them to that last simple command;
* a here-document's operator swallows the rest of its line (``cat <<EOF | wc``, ``cat <<EOF &&
  echo``) as fields of the redirect; they are the pipeline or list the command is part of;
* a unary operator in arithmetic takes the whole binary expression after it (``-x + 1`` as
  ``-(x + 1)``); bash's unary operators bind tighter than every binary one (expr.c);
* a digit before ``<`` (``cat 0<f``) is read as an argument; adjacent to the operator it is the
  descriptor.
"""

from __future__ import annotations

from labsim.shell.syntax import ast, errors
from labsim.shell.syntax import text as lexical
from labsim.shell.syntax.cst import Node, Tree, first_error

SEPARATORS = {";", "&", "\n", ";;", "&&", "||", "|", "|&", "comment"}
COMPOUND = {"subshell", "compound_statement", "for_statement", "c_style_for_statement",
            "while_statement", "if_statement", "case_statement", "function_definition"}


class _Syntax(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _Unsupported(Exception):
    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


def convert(tree: Tree) -> ast.Program | ast.SyntaxError_:
    error = first_error(tree.root)
    if error is not None:
        return ast.SyntaxError_(errors.message(tree, error))
    if any(c.type == ";;" for c in tree.root.children):
        return ast.SyntaxError_("syntax error near unexpected token `;;'")
    try:
        return _Converter(tree).program(tree.root.children)
    except _Syntax as syntax:
        return ast.SyntaxError_(syntax.message)


class _Converter:
    def __init__(self, tree: Tree):
        self.tree = tree
        self.source = tree.source

    def text(self, node: Node) -> str:
        return self.source[node.start:node.end]

    # ------------------------------------------------------------ lists and commands

    def program(self, nodes: tuple[Node, ...]) -> ast.Program:
        return ast.Program(tuple(self.command(n) for n in nodes
                                 if n.named and n.type not in SEPARATORS))

    def command(self, node: Node) -> ast.Command:
        try:
            return self._command(node)
        except _Unsupported as unsupported:
            return ast.Unsupported(unsupported.what)

    def _command(self, node: Node) -> ast.Command:
        kind = node.type
        if kind == "command":
            return self.simple(node)
        if kind in ("variable_assignment", "variable_assignments"):
            assignments = (node,) if kind == "variable_assignment" else tuple(
                c for c in node.children if c.type == "variable_assignment")
            return ast.Simple(tuple(self.assignment(a) for a in assignments), ())
        if kind == "redirected_statement":
            return self.redirected(node)
        if kind == "pipeline":
            return self.pipeline(node)
        if kind == "list":
            return self.and_or(node)
        if kind == "negated_command":
            inner = self.command(_named(node)[0])
            if isinstance(inner, ast.Pipeline):
                return ast.Pipeline(inner.commands, negated=not inner.negated)
            return ast.Pipeline((inner,), negated=True)
        if kind == "subshell":
            return ast.Group(self.program(node.children), subshell=True)
        if kind == "compound_statement":
            if node.children and node.children[0].type == "((":
                expressions = _named(node)
                if len(expressions) != 1:
                    raise _Unsupported("this (( )) expression")
                return ast.ArithmeticCommand(self.arithmetic(expressions[0]))
            return ast.Group(self.program(node.children), subshell=False)
        if kind == "for_statement":
            return self.for_loop(node)
        if kind == "c_style_for_statement":
            return self.arithmetic_for(node)
        if kind == "while_statement":
            until = any(c.type == "until" for c in node.children)
            condition = ast.Program(tuple(self.command(c) for c in node.children
                                          if c.field == "condition" and c.named))
            return ast.While(condition, self.body(node), until)
        if kind == "if_statement":
            return self.if_statement(node)
        if kind == "case_statement":
            return self.case(node)
        if kind == "function_definition":
            name = next(c for c in node.children if c.field == "name")
            body = next(c for c in node.children if c.field == "body")
            return ast.FunctionDefinition(self.text(name), self.command(body))
        if kind == "test_command":
            return self.test(node)
        if kind in ("declaration_command", "unset_command"):
            return self.declaration(node)
        raise _Unsupported(kind.replace("_", " "))

    def simple(self, node: Node) -> ast.Command:
        name = next((c for c in node.children if c.type == "command_name"), None)
        if name is not None and self.text(name) == "time" and not any(
                c.type == "variable_assignment" for c in node.children):
            return self.timed(node, name)
        assignments: list[ast.Assignment] = []
        words: list[ast.Word] = []
        redirects: list[ast.Redirect] = []
        children = [c for c in node.children if c.named]
        for child in children:
            if child.type == "variable_assignment":
                assignments.append(self.assignment(child))
            elif child.field == "redirect" or child.type.endswith("_redirect"):
                redirects.append(self.redirect(child))
            elif child.type == "command_name":
                if self.text(child) in errors.MISPLACED_WORDS and not assignments:
                    raise _Syntax(f"syntax error near unexpected token `{self.text(child)}'")
                words.append(self.word(_named(child)[0] if _named(child) else child))
            elif child.type == "subshell":
                raise _Unsupported("this subshell")
            else:
                words.append(self.word(child))
        command: ast.Command = ast.Simple(tuple(assignments), tuple(words))
        return ast.Redirected(command, tuple(redirects)) if redirects else command

    def timed(self, node: Node, name: Node) -> ast.Command:
        """``time`` is a reserved word timing what follows (tree-sitter-bash reads it as a
        command name): ``time sleep 1``, ``time (sleep 1)``, ``time { a; b; }``."""
        rest = [c for c in node.children if c.named and c is not name]
        if len(rest) == 1 and rest[0].type in ("subshell", "compound_statement"):
            return ast.Timed(self.command(rest[0]))
        if any(c.type in COMPOUND for c in rest):
            raise _Unsupported("time with this command")
        inner = Node("command", True, None, rest[0].start if rest else node.end, node.end,
                     tuple(Node(c.type, c.named, c.field, c.start, c.end, c.children, c.missing)
                           for c in rest), False)
        if not rest:
            return ast.Timed(ast.Simple((), ()))
        first = rest[0]
        if first.field == "argument" and first.type in ("word", "number"):
            renamed = Node("command_name", True, "name", first.start, first.end, (first,))
            inner = Node("command", True, None, inner.start, inner.end,
                         (renamed, *inner.children[1:]), False)
        return ast.Timed(self.command(inner))

    def assignment(self, node: Node) -> ast.Assignment:
        name = next(c for c in node.children if c.field == "name")
        value = next((c for c in node.children if c.field == "value"), None)
        if value is not None and value.type == "array":
            raise _Unsupported("arrays")
        if name.type == "subscript":
            raise _Unsupported("arrays")
        append = any(c.type == "+=" for c in node.children)
        word = self.word(value) if value is not None else ast.Word(())
        return ast.Assignment(self.text(name), word, append)

    def redirected(self, node: Node) -> ast.Command:
        body_node = next((c for c in node.children if c.field == "body"), None)
        redirect_nodes = [c for c in node.children if c.field == "redirect"
                          or (c.named and c.type.endswith("_redirect") and c.field != "body")]
        body: ast.Command = self.command(body_node) if body_node is not None \
            else ast.Simple((), ())
        if body_node is not None and body_node.type == "command":
            body, redirect_nodes = self._descriptor_digits(body, body_node, redirect_nodes)
        redirects = tuple(self.redirect(r) for r in redirect_nodes)
        # The rest of the line a here-document's redirect swallowed (see the module's note).
        tail = [c for r in redirect_nodes if r.type == "heredoc_redirect" for c in r.children
                if c.named and c.type not in ("heredoc_start", "heredoc_body", "heredoc_end")
                and c.field != "operator"]
        operators = [c for r in redirect_nodes if r.type == "heredoc_redirect"
                     for c in r.children if c.field == "operator"]
        command = _attach(body, redirects) if body_node is not None and body_node.type in (
            "list", "pipeline") else ast.Redirected(body, redirects)
        for extra in tail:
            if extra.type == "pipeline":
                rest = [self.command(c) for c in extra.children if c.named]
                command = ast.Pipeline((command, *rest))
            elif extra.type.endswith("_redirect"):
                command = _attach(command, (self.redirect(extra),))
            else:
                operator = self.text(operators.pop(0)) if operators else ";"
                following = self.command(extra)
                if operator in ("&&", "||"):
                    command = ast.AndOr(command, ((operator, following),))
                else:
                    command = ast.Program((command, following))
        return command

    def _descriptor_digits(self, body: ast.Command, body_node: Node, redirects: list[Node]
                           ) -> tuple[ast.Command, list[Node]]:
        """``cat 0<f``: a last argument of digits right before the operator is its descriptor
        (tree-sitter-bash 0.25 reads it as an argument)."""
        arguments = [c for c in body_node.children if c.field == "argument"]
        if (not redirects or not arguments or not isinstance(body, ast.Simple)
                or not self.text(arguments[-1]).isdigit() or arguments[-1].end != redirects[0].start
                or any(c.field == "descriptor" for c in redirects[0].children)):
            return body, redirects
        first = redirects[0]
        fixed = Node(first.type, first.named, first.field, arguments[-1].start, first.end,
                     (Node("file_descriptor", True, "descriptor", arguments[-1].start,
                           arguments[-1].end), *first.children), first.missing)
        return ast.Simple(body.assignments, body.words[:-1]), [fixed, *redirects[1:]]

    def redirect(self, node: Node) -> ast.Redirect:
        fd_node = next((c for c in node.children if c.field == "descriptor"), None)
        fd = int(self.text(fd_node)) if fd_node is not None else None
        operator = next((c for c in node.children if not c.named), None)
        op = self.text(operator) if operator is not None else ">"
        if node.type == "heredoc_redirect":
            return self.heredoc(node, op, fd)
        if node.type == "herestring_redirect":
            value = next(c for c in node.children if c.named)
            return ast.Redirect("<<<", self.word(value), fd)
        destination = [c for c in node.children if c.field == "destination"]
        if op == ">&-" or op == "<&-":
            return ast.Redirect(op, ast.Word(()), fd)
        if len(destination) != 1:
            raise _Unsupported("this redirection")
        return ast.Redirect(op, self.word(destination[0]), fd)

    def heredoc(self, node: Node, op: str, fd: int | None) -> ast.Redirect:
        start = next(c for c in node.children if c.type == "heredoc_start")
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        end = next((c for c in node.children if c.type == "heredoc_end"), None)
        delimiter = self.text(start)
        literal = any(q in delimiter for q in "'\"\\")
        first = self.source.find("\n", start.end) + 1
        if body is not None:
            first = self.source.rfind("\n", 0, body.start) + 1
        last = (self.source.rfind("\n", 0, end.start) + 1) if end is not None \
            else len(self.source)
        first = min(max(first, 0) or len(self.source), last)
        expansions = () if literal or body is None else tuple(
            c for c in body.children if c.named and c.type != "heredoc_content"
            and first <= c.start and c.end <= last)
        parts: list[ast.Part] = []
        position = first
        for expansion in expansions:
            parts.extend(self._heredoc_text(position, expansion.start, op, literal))
            parts.extend(self.parts(expansion, quoted=True))
            position = expansion.end
        parts.extend(self._heredoc_text(position, last, op, literal))
        return ast.Redirect(op, ast.Word(tuple(parts)), fd, literal)

    def _heredoc_text(self, start: int, end: int, op: str, literal: bool) -> list[ast.Part]:
        text = self.source[start:end]
        if op == "<<-":
            at_line_start = start == 0 or self.source[start - 1] == "\n"
            lines = text.split("\n")
            text = "\n".join(line.lstrip("\t") if (i or at_line_start) else line
                             for i, line in enumerate(lines))
        if not literal:
            text = lexical.unescape(text, "$`\\\n")
        return [ast.Literal(text, quoted=True)] if text else []

    def pipeline(self, node: Node) -> ast.Command:
        commands: list[ast.Command] = []
        negated = False
        for child in node.children:
            if child.named and not commands and child.type == "negated_command":
                # ``! a | b`` negates the pipeline (tree-sitter-bash gives ! to a alone)
                negated = True
                commands.append(self.command(_named(child)[0]))
            elif child.named:
                commands.append(self.command(child))
            elif child.type == "|&" and commands:
                commands[-1] = _attach(commands[-1], (ast.Redirect(">&", _literal("1"), 2),))
        return ast.Pipeline(tuple(commands), negated)

    def and_or(self, node: Node) -> ast.Command:
        left = next(c for c in node.children if c.named)
        operator = next(c for c in node.children if not c.named)
        right = [c for c in node.children if c.named][1]
        first = self.command(left)
        pair = (self.text(operator), self.command(right))
        if isinstance(first, ast.AndOr):
            return ast.AndOr(first.first, (*first.rest, pair))
        return ast.AndOr(first, (pair,))

    def body(self, node: Node) -> ast.Program:
        group = next(c for c in node.children if c.field == "body")
        if group.type == "do_group":
            return self.program(group.children)
        return ast.Program((self.command(group),))

    def for_loop(self, node: Node) -> ast.Command:
        if any(c.type == "select" for c in node.children):
            raise _Unsupported("select")
        variable = next(c for c in node.children if c.field == "variable")
        values = [c for c in node.children if c.field == "value"]
        has_in = any(c.type == "in" for c in node.children)
        words = tuple(self.word(v) for v in values) if has_in else None
        return ast.For(self.text(variable), words, self.body(node))

    def arithmetic_for(self, node: Node) -> ast.Command:
        def field(name: str) -> ast.Arithmetic | None:
            found = [c for c in node.children if c.field == name]
            if len(found) > 1:
                raise _Unsupported("commas in for (( ))")
            return self.arithmetic(found[0]) if found else None

        return ast.ArithmeticFor(field("initializer"), field("condition"), field("update"),
                                 self.body(node))

    def if_statement(self, node: Node) -> ast.Command:
        branches: list[tuple[ast.Program, ast.Program]] = []
        otherwise: ast.Program | None = None
        condition = ast.Program(tuple(self.command(c) for c in node.children
                                      if c.field == "condition" and c.named))
        body = [c for c in node.children if c.named and c.field is None
                and c.type not in ("elif_clause", "else_clause")]
        branches.append((condition, self.program(tuple(body))))
        for clause in node.children:
            if clause.type == "elif_clause":
                named = [c for c in clause.children if c.named and c.type not in SEPARATORS]
                split = next(i for i, c in enumerate(clause.children) if c.type == "then")
                condition_nodes = [c for c in clause.children[:split] if c in named]
                body_nodes = [c for c in clause.children[split:] if c in named]
                branches.append((self.program(tuple(condition_nodes)),
                                 self.program(tuple(body_nodes))))
            elif clause.type == "else_clause":
                otherwise = self.program(clause.children)
        return ast.If(tuple(branches), otherwise)

    def case(self, node: Node) -> ast.Command:
        value = next(c for c in node.children if c.field == "value")
        items = []
        for item in (c for c in node.children if c.type == "case_item"):
            patterns = tuple(self.word(c) for c in item.children if c.field == "value")
            if any(c.type in (";&", ";;&") for c in item.children):
                raise _Unsupported("case fall-through (;& and ;;&)")
            body = tuple(c for c in item.children if c.named and c.field is None)
            items.append((patterns, self.program(body)))
        return ast.Case(self.word(value), tuple(items))

    def test(self, node: Node) -> ast.Command:
        """``[[ ... ]]`` or ``[ ... ]``: its leaves, in order, as the words of test."""
        double = node.children[0].type == "[["
        words: list[ast.Word] = []

        def leaves(n: Node) -> None:
            if n.type in ("binary_expression", "unary_expression", "parenthesized_expression",
                          "test_command") or (not n.named and n.type not in ("[[", "]]", "[", "]")
                                              and n.children):
                for child in n.children:
                    leaves(child)
            elif n.type in ("[[", "]]", "[", "]"):
                return
            elif n.named and n.type != "test_operator":
                words.append(self.word(n))
            else:
                words.append(_literal(self.text(n)))

        for child in node.children:
            leaves(child)
        if not double:
            return ast.Simple((), (_literal("["), *words, _literal("]")))
        return ast.TestCommand(tuple(words), double=True)

    def declaration(self, node: Node) -> ast.Command:
        keyword = self.text(node.children[0])
        words = [_literal(keyword)]
        for child in node.children[1:]:
            if not child.named:
                continue
            if child.type == "variable_assignment":
                assignment = self.assignment(child)
                operator = "+=" if assignment.append else "="
                words.append(ast.Word((ast.Literal(assignment.name + operator, True),
                                       *assignment.value.parts)))
            else:
                words.append(self.word(child))
        return ast.Simple((), tuple(words))

    # ------------------------------------------------------------ words

    def word(self, node: Node) -> ast.Word:
        return ast.Word(tuple(self.parts(node, quoted=False)))

    def parts(self, node: Node, quoted: bool) -> list[ast.Part]:
        kind = node.type
        if kind in ("word", "number", "command_name", "extglob_pattern", "regex",
                    "file_descriptor", "variable_name", "special_variable_name",
                    "test_operator", "heredoc_start"):
            return lexical.word_text(self.text(node), quoted)
        if kind == "raw_string":
            return [ast.Literal(self.text(node)[1:-1], True)]
        if kind == "ansi_c_string":
            return [ast.Literal(lexical.ansi_c(self.text(node)[2:-1]), True)]
        if kind in ("string", "translated_string"):
            return self.double_quoted(node)
        if kind == "concatenation":
            return self.spanned(node, node.start, node.end, quoted)
        if kind == "simple_expansion":
            name = _named(node)
            return [ast.Parameter(self.text(name[0]) if name else self.text(node)[1:], quoted)]
        if kind == "expansion":
            return [self.expansion(node, quoted)]
        if kind == "command_substitution":
            body = tuple(c for c in node.children if c.named)
            return [ast.CommandSubstitution(self.program(body), quoted)]
        if kind == "arithmetic_expansion":
            expressions = _named(node)
            if len(expressions) != 1:
                raise _Unsupported("this arithmetic expansion")
            return [ast.ArithmeticExpansion(self.arithmetic(expressions[0]), quoted)]
        if kind == "brace_expression":
            bounds = _named(node)
            if len(bounds) != 2:
                raise _Unsupported("this brace expansion")
            return [ast.BraceRange(self.text(bounds[0]), self.text(bounds[1]))]
        if kind == "string_content":
            return [ast.Literal(lexical.unescape(self.text(node), "$`\"\\\n"), True)]
        if kind == "process_substitution":
            raise _Unsupported("process substitution")
        raise _Unsupported(kind.replace("_", " "))

    def double_quoted(self, node: Node) -> list[ast.Part]:
        opening = 2 if self.text(node).startswith("$\"") else 1
        return self.spanned(node, node.start + opening, node.end - 1, quoted=True) \
            or [ast.Literal("", True)]

    def spanned(self, node: Node, start: int, end: int, quoted: bool) -> list[ast.Part]:
        """The parts of ``node`` between ``start`` and ``end``; text no child covers is
        literal (inside double quotes, with their escapes)."""
        parts: list[ast.Part] = []
        position = start
        for child in node.children:
            if not child.named or child.start < start or child.end > end:
                continue
            if child.start > position:
                parts.extend(self._gap(self.source[position:child.start], quoted))
            parts.extend(self.parts(child, quoted))
            position = child.end
        if position < end:
            parts.extend(self._gap(self.source[position:end], quoted))
        return parts

    def _gap(self, text: str, quoted: bool) -> list[ast.Part]:
        if quoted:
            return [ast.Literal(lexical.unescape(text, "$`\"\\\n"), True)]
        return lexical.word_text(text, False)

    def expansion(self, node: Node, quoted: bool) -> ast.Parameter:
        """``${name}``, ``${#name}``, ``${name OP word}``."""
        inner = [c for c in node.children if c.type not in ("${", "}")]
        if inner and inner[0].type == "#" and len(inner) == 2:
            return ast.Parameter(self.text(inner[1]), quoted, "len")
        if not inner or inner[0].type not in ("variable_name", "special_variable_name"):
            raise _Unsupported(f"the expansion {self.text(node)}")
        name = self.text(inner[0])
        if len(inner) == 1:
            return ast.Parameter(name, quoted)
        operator = self.text(inner[1])
        if inner[1].named or operator not in ("-", ":-", "=", ":=", "+", ":+", "?", ":?", "#",
                                               "##", "%", "%%"):
            raise _Unsupported(f"the expansion {self.text(node)}")
        rest = inner[2:]
        argument_parts: list[ast.Part] = []
        if rest:
            argument_parts = self.spanned(node, rest[0].start, rest[-1].end, quoted)
        return ast.Parameter(name, quoted, operator, ast.Word(tuple(argument_parts)))

    # ------------------------------------------------------------ arithmetic

    def arithmetic(self, node: Node) -> ast.Arithmetic:
        kind = node.type
        if kind == "number":
            return ast.Number(self.text(node))
        if kind in ("variable_name", "word"):
            text = self.text(node)
            return ast.Variable(text) if text.isidentifier() else ast.Number(text)
        if kind == "parenthesized_expression":
            inner = _named(node)
            if len(inner) != 1:
                raise _Unsupported("this arithmetic expression")
            return self.arithmetic(inner[0])
        if kind in ("simple_expansion", "expansion", "command_substitution", "string",
                    "raw_string", "concatenation", "arithmetic_expansion"):
            return ast.Expanded(self.word(node))
        if kind == "binary_expression":
            left = next(c for c in node.children if c.field == "left")
            right = next(c for c in node.children if c.field == "right")
            operator = next(c for c in node.children if c.field == "operator")
            return ast.Binary(self.text(operator), self.arithmetic(left), self.arithmetic(right))
        if kind == "variable_assignment":
            name = next(c for c in node.children if c.field == "name")
            value = next(c for c in node.children if c.field == "value")
            return ast.Binary("=", ast.Variable(self.text(name)), self.arithmetic(value))
        if kind in ("unary_expression", "postfix_expression"):
            operator = next(c for c in node.children if c.field == "operator")
            operand = self.arithmetic(_named(node)[0])
            op = self.text(operator)
            if kind == "postfix_expression":
                return ast.Unary("x" + op, operand)
            if op in ("++", "--"):
                return ast.Unary(op + "x", operand)
            return _unary_first(op, operand)
        if kind == "ternary_expression":
            fields = {c.field: c for c in node.children if c.field}
            return ast.Conditional(self.arithmetic(fields["condition"]),
                                   self.arithmetic(fields["consequence"]),
                                   self.arithmetic(fields["alternative"]))
        raise _Unsupported(f"the arithmetic {self.text(node)!r}")


def _unary_first(op: str, operand: ast.Arithmetic) -> ast.Arithmetic:
    """Unary ``op`` applied to the leftmost operand of a binary expression (see the module's
    note): ``-(x + 1)`` as tree-sitter-bash gives it is ``(-x) + 1``."""
    if isinstance(operand, ast.Binary) and not _is_assignment(operand.operator):
        return ast.Binary(operand.operator, _unary_first(op, operand.left), operand.right)
    if isinstance(operand, ast.Conditional):
        return ast.Conditional(_unary_first(op, operand.condition), operand.then,
                               operand.otherwise)
    return ast.Unary(op, operand)


def _is_assignment(operator: str) -> bool:
    return operator.endswith("=") and operator not in ("==", "!=", "<=", ">=")


def _named(node: Node) -> list[Node]:
    return [c for c in node.children if c.named and c.type != "comment"]


def _literal(text: str) -> ast.Word:
    return ast.Word((ast.Literal(text, True),))


def _attach(command: ast.Command, redirects: tuple[ast.Redirect, ...]) -> ast.Command:
    """Redirections written after the last command of a list or pipeline are that command's."""
    if not redirects:
        return command
    if isinstance(command, ast.AndOr) and command.rest:
        operator, last = command.rest[-1]
        return ast.AndOr(command.first, (*command.rest[:-1], (operator, _attach(last, redirects))))
    if isinstance(command, ast.AndOr):
        return ast.AndOr(_attach(command.first, redirects), ())
    if isinstance(command, ast.Pipeline) and command.commands:
        return ast.Pipeline((*command.commands[:-1], _attach(command.commands[-1], redirects)),
                            command.negated)
    if isinstance(command, ast.Program) and command.commands:
        return ast.Program((*command.commands[:-1], _attach(command.commands[-1], redirects)))
    if isinstance(command, ast.Redirected):
        return ast.Redirected(command.command, command.redirects + redirects)
    return ast.Redirected(command, redirects)
