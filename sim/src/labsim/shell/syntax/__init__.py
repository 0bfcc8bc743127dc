"""The shell's grammar, at the edge: tree-sitter-bash parses a command line (labsim.shell.syntax.
backend), its concrete tree becomes a neutral tree of plain nodes (cst), and one converter makes
the small AST the executor walks (convert, ast)."""
