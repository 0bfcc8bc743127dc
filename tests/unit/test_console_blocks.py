"""Console blocks (tools/console_blocks.py): the commands of a transcript, found in a page's
Markdown and given to the copy button in its HTML."""

import html
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import console_blocks  # noqa: E402

PAGE = """Text.

```console
root@lab:~# zpool create tank /nonexistent
cannot resolve path '/nonexistent'
root@lab:~# echo a \\
b
a b
```

!!! note

    ```console title="Recorded in the lab VM"
    root@lab:~# zpool list
    no pools available
    ```

```c
int x;
```

~~~console
[#] wg set wg0 fwmark 51820
~~~
"""


def test_blocks_at_any_indentation_with_their_commands_and_output():
    blocks = console_blocks.markdown_blocks(PAGE)
    assert [(b.line, b.title, b.elsewhere) for b in blocks] == [
        (3, "", False), (13, "Recorded in the lab VM", True), (22, "", False)]
    first = blocks[0].commands
    assert [(c.prompt, c.text, c.output) for c in first] == [
        ("root@lab:~# ", "zpool create tank /nonexistent", ("cannot resolve path '/nonexistent'",)),
        ("root@lab:~# ", "echo a \\\nb", ("a b",))]
    assert blocks[1].commands[0].output == ("no pools available",)
    assert blocks[2].commands == ()  # output only: no prompt


def test_copy_text_is_the_commands_alone():
    assert console_blocks.copy_text(console_blocks.markdown_blocks(PAGE)[0].lines) == (
        "zpool create tank /nonexistent\necho a \\\nb")
    assert console_blocks.copy_text(["vagrant@zfl-labs:/labs$ sudo ls", "x",
                                     "$ cd labs", "# ls", "total 0"]) == "sudo ls\ncd labs"


def test_the_html_of_a_block_gets_its_commands_as_data_copy():
    code = ('<span class="gp">root@lab:~# </span>zpool<span class="w"> </span>list &amp;&amp; '
            'echo &quot;x&quot;\n<span class="go">no pools available</span>\n')
    page = (f'<div class="language-console highlight"><pre><span></span><code>{code}</code></pre>'
            '</div><div class="language-console highlight"><span class="filename">T</span><pre>'
            '<span></span><code><span class="go">only output</span></code></pre></div>'
            '<div class="language-c highlight"><pre><span></span><code>x</code></pre></div>')
    script = ('<div class="language-console highlight"><pre><span></span><code>'
              '# make the files\ntruncate -s 1G a.raw\n</code></pre></div>')
    out = console_blocks.with_copy_text(page + script)
    assert out.count("data-copy=") == 1  # not the output-only block, not the plain script
    value = out.split('data-copy="', 1)[1].split('"', 1)[0]
    assert html.unescape(value) == 'zpool list && echo "x"'
    assert console_blocks.with_copy_text(out) == out  # once only
