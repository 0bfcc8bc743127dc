// The shell's grammar in the page: tree-sitter-bash on web-tree-sitter (both MIT), the same
// grammar labsim parses with in CPython (py-tree-sitter and the tree-sitter-bash wheel).
// bashParser() resolves to a function from a command line to its concrete tree as JSON, the
// shape labsim.shell.syntax.cst.from_json reads: [type, named, field, start, end, children,
// missing]. labsim hands it ASCII only (labsim.shell.syntax.backend.prepared), so its offsets
// are Python's too. The worker (labsim-worker.js) hands it to Python as labsimParseBash;
// tests/unit/test_shell_grammar_js.py runs it under Node and compares it with CPython's tree.

export async function bashParser({ module, runtimeWasm, grammarWasm }) {
  const { Parser, Language } = await import(module);
  await Parser.init({ locateFile: () => runtimeWasm });
  const bash = await Language.load(grammarWasm);
  const parser = new Parser();
  parser.setLanguage(bash);
  return (source) => {
    const tree = parser.parse(source);
    try {
      return JSON.stringify(treeJson(tree.rootNode));
    } finally {
      tree.delete();
    }
  };
}

function treeJson(root) {
  const cursor = root.walk();
  const visit = () => {
    const node = cursor.currentNode;
    const field = cursor.currentFieldName ?? null;
    const children = [];
    if (cursor.gotoFirstChild()) {
      do children.push(visit()); while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return [node.type, node.isNamed ? 1 : 0, field, node.startIndex, node.endIndex, children,
      node.isMissing ? 1 : 0];
  };
  try {
    return visit();
  } finally {
    cursor.delete();
  }
}
