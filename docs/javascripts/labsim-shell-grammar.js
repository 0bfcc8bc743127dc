// The shell's grammar in the page: tree-sitter-bash on web-tree-sitter (both MIT), the same
// grammar labsim parses with in CPython (py-tree-sitter and the tree-sitter-bash wheel).
// bashParser() resolves to a function from a command line to its concrete tree as JSON, the
// shape labsim.shell.syntax.cst.from_json reads: [type, named, field, start, end, children,
// missing], offsets in code points as Python counts them (web-tree-sitter counts UTF-16
// units). The worker (labsim-worker.js) hands it to Python as labsimParseBash;
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
      return JSON.stringify(treeJson(tree.rootNode, sourceOffsets(source)));
    } finally {
      tree.delete();
    }
  };
}

function sourceOffsets(source) {
  if (!/[\uD800-\uDFFF]/.test(source)) return (offset) => offset;
  const points = new Int32Array(source.length + 1);
  let point = 0;
  for (let unit = 0; unit < source.length; unit++) {
    points[unit] = point;
    const code = source.charCodeAt(unit);
    if (code < 0xd800 || code > 0xdbff) point++;
  }
  points[source.length] = point;
  return (offset) => points[offset];
}

function treeJson(root, at) {
  const cursor = root.walk();
  const visit = () => {
    const node = cursor.currentNode;
    const field = cursor.currentFieldName ?? null;
    const children = [];
    if (cursor.gotoFirstChild()) {
      do children.push(visit()); while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return [node.type, node.isNamed ? 1 : 0, field, at(node.startIndex), at(node.endIndex),
      children, node.isMissing ? 1 : 0];
  };
  try {
    return visit();
  } finally {
    cursor.delete();
  }
}
