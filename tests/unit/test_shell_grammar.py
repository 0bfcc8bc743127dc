"""The shell's grammar and executor against real bash: each line runs in bash on this machine
(in an empty directory) and in labsim, and both must print the same and exit the same.

Interactive bash prints its messages as ``bash: MESSAGE``; ``bash -c`` adds where the line was
(``bash: line 1: ``, ``bash: -c: line 1: ``), which is taken off before comparing.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from labsim.shell.session import Session

BASH = shutil.which("bash")

LINES = [
    # lists, pipes, negation
    "true && echo hi", "false && echo no; echo $?", "false || echo yes", "! false; echo $?",
    "true || echo no && echo yes", "echo a; echo b", "echo x | cat", "echo a#b",
    "echo a # a comment", "seq 5 | head -n 2", "echo one | cat | cat",
    "false | true; echo $?", "true | false; echo $?", "! true | false; echo $?",
    # quoting
    "echo 'a  b' \"c  d\" e\\ \\ f", "echo \"a\\$b\" '$x' \\$y", "echo $'tab\\there'",
    "echo \"\\a\\\\b\"", "echo '' \"\" x", "echo a\"b\"'c'd",
    # variables, $?, parameter operators
    "x=5; echo $x ${x} \"$x\"", "x=1 y=2; echo $x$y", "echo ${unset:-default} ${unset-d2}",
    "x=; echo [${x:-empty}] [${x-set}]", "echo ${x:=new}; echo $x", "x=a; echo ${x:+alt}",
    "p=/a/b/c.tar.gz; echo ${p#*/} ${p##*/} ${p%.*} ${p%%.*}", "x=hello; echo ${#x}",
    "ls /nonexistent 2>/dev/null; echo $?", "x=$(false); echo $?", "unset x; echo [$x]",
    "a='1 2   3'; for w in $a; do echo $w; done", "a='1 2   3'; echo \"$a\"",
    "export A=1 B; echo $A", "x=1; x+=2; echo $x",
    # command substitution
    "echo $(echo inner) \"$(echo  two  words)\"", "echo `echo back`",
    "echo \"$(printf 'a\\nb\\n\\n')\"", "x=$(seq 3); echo $x", "echo $(echo $(echo deep))",
    # arithmetic
    "echo $((1 + 2 * 3)) $(((1 + 2) * 3)) $((7 / 2)) $((-7 / 2)) $((-7 % 2)) $((2 ** 10))",
    "x=3; echo $((x * 2)) $((x++)) $x $((++x)) $((x += 10)) $x", "echo $((-2 + 5))",
    "echo $((1 < 2)) $((1 == 2)) $((1 && 0)) $((1 || 0)) $((!0)) $((~0)) $((5 ? 7 : 8))",
    "echo $((0x10 + 010 + 2#101))", "y=1+2; echo $((y * 2))", "echo $((1 << 4)) $((-1 >> 1))",
    "echo $((9223372036854775807 + 1))", "(( 2 > 1 )) && echo yes", "(( 0 )); echo $?",
    # loops and conditionals
    "for i in 1 2 3; do echo $i; done", "for i in a b; do echo $i; done | cat",
    "i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done",
    "i=0; until [ $i -ge 2 ]; do i=$((i+1)); done; echo $i",
    "for ((i = 0; i < 3; i++)); do echo $i; done",
    "for i in 1 2 3 4; do [ $i = 3 ] && break; echo $i; done",
    "for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done",
    "for i in 1 2; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; done",
    "if true; then echo y; else echo n; fi", "if false; then echo y; elif true; then echo e; fi",
    "case abc in a*) echo A;; *) echo B;; esac", "case x in a|x) echo ax;; esac",
    "case 'a b' in 'a b') echo quoted;; esac", "for i in {1..3} {a..c}; do echo $i; done",
    "echo a{b,c}d {x,y}", "echo {05..10}",
    # functions and groups
    "f() { echo fn $1 $#; }; f a b", "f() { return 3; }; f; echo $?",
    "f() { local v=1; echo $v; }; f", "{ echo a; echo b; } | cat", "(echo sub; exit 4); echo $?",
    "x=1; (x=2); echo $x", "x=1; { x=2; }; echo $x", "echo $(x=5; echo $x) $x",
    # test, [ and [[
    "[ abc = abc ] && echo eq", "[ 1 -lt 2 ] && echo lt", "[ -n '' ]; echo $?",
    "[ -z '' ] && echo empty", "test 3 -ge 3 && echo ge", "[ ! -e nothing ] && echo missing",
    "[ abc -lt 3 ]; echo $?", "[ 1 -lt ]; echo $?", "[ a b ]; echo $?", "[ a = b c ]; echo $?",
    "[ x; echo $?", "[[ abc == a* ]] && echo match", "[[ abc == 'a*' ]]; echo $?",
    "[[ -n x && 1 -eq 1 ]] && echo both", "[[ ab =~ ^a ]] && echo re",
    "[ \\( a = a \\) -a b = b ] && echo paren",
    # redirections and here-documents
    "echo out > f; cat f", "echo 1 > f; echo 2 >> f; cat f", "cat < nofile; echo $?",
    "cat <<EOF\nhello $HOME\n$(echo sub)\nEOF", "cat <<'EOF'\nliteral $HOME\nEOF",
    "cat <<-EOF\n\tindented\n\tEOF", "cat <<< 'here string'",
    "read a b <<< 'one two three'; echo $b",
    "echo err >&2", "echo err 1>&2 2>/dev/null", "ls nofile 2>&1 | cat",
    "{ echo o; ls nofile; } 2>&1 > f; echo ---; cat f", "echo x > /nonexistent/f; echo $?",
    "echo a > f; cat < f | cat", "while read l; do echo [$l]; done <<EOF\na\nb c\nEOF",
    "printf '%s\\n' 1 2 3 | while read n; do echo n$n; done",
    # builtins
    "echo -n a; echo b", "echo -e 'a\\tb'", "echo -ne 'x\\n'", "echo -- -n", "eval 'echo ev'",
    "set -- a b c; echo $# $2; shift; echo $1", "type cd", "break; echo $?", "exit 3",
    "return; echo $?", "export 1=2; echo $?", ":; echo $?",
    # coreutils and grep, with GNU's output formats
    "printf 'a b\\nc\\n' > f; printf xyz > g; wc f; wc f g; wc -l f g; wc -c f",
    "echo hi | wc; echo hi | wc -l; seq 100000 | wc -c; seq 1000 > big; wc -lw big f",
    "seq 10 | sort -r; printf 'b\\nB\\na\\n10\\n9\\n' | sort",
    "printf '10\\n9\\n1K\\n2\\n' | sort -h",
    "printf '3\\n1\\n1\\n2\\n' | sort -n | uniq -c", "printf 'a\\na\\nb\\n' | uniq -d",
    "printf 'x 3\\ny 1\\nz 2\\n' | sort -k 2 -n", "printf 'a:3\\nb:1\\n' | sort -t: -k2",
    "printf 'b\\na\\nb\\n' | sort -u", "echo a:b:c:d | cut -d: -f2,4", "echo abcdef | cut -c 2-4",
    "echo hello | tr a-z A-Z", "echo hello | tr -d l", "echo aabbcc | tr -s ab",
    "echo 'a  b' | tr -s ' ' '\\n'", "echo hello | tr '[:lower:]' '[:upper:]'",
    "echo hi | tr a b FILE; echo $?; echo hi | tr -ds a; echo hi | tr -ds i h c; tr -d a b",
    "echo hello | tr -s l FILE; echo hello | tr -ds l o; tr; tr a",
    "echo a > a; echo b > b; mv -n a b; echo $?; cat b; mv -nv a b; mv -v a c; mv -fn c b; cat b",
    "echo a > a; mv a a; echo $?; mv -n a a; echo $?; mkdir d; mv -v a d/; mv -nf d/a d; ls d",
    "seq 20 | tail -n 3", "seq 5 | tail -n +4", "seq 5 | tail -c 4", "seq 20 | tail -3",
    "printf 'foo\\nbar\\nbaz\\n' > f; grep -n ba f; grep -c ba f; grep -v ba f; grep -x bar f",
    "printf 'foo\\nbar\\n' | grep -q o; echo $?; echo abc | grep -o b; echo x | grep y; echo $?",
    "printf 'a1\\nb2\\n' > f; printf 'c1\\n' > g; grep 1 f g; grep -l 1 f g; grep -h 1 f g",
    "echo 'a(b' | grep 'a(b'; echo aab | grep 'a\\{2\\}'; echo ab | grep -E 'a|x'",
    "echo AB | grep -i ab",
    "grep x nofile; echo $?", "printf 'ab\\n' | grep -w a; echo $?",
    "printf 'a b\\nc\\n' > f; md5sum f; sha256sum f; sha1sum f; echo hi | sha512sum",
    "echo hi | base64; seq 100 | base64 | head -2; seq 30 | base64 -w 0; echo",
    "echo aGkK | base64 -d; echo '!!' | base64 -d; echo $?",
    "printf abc > a; printf abd > b; cmp a b; echo $?; cmp -s a a; echo $?",
    "printf 'a\\nb\\n' > a; printf 'a\\nc\\n' > b; cmp a b; printf 'a b' > c; cmp a c",
    "printf abc > f; stat -c '%s %n %F' f; touch e; stat -c '%s %F' e",
    "sleep 0.5 1s; echo $?; sleep nan; sleep", "head -c 5 /dev/zero | wc -c",
    # files hold bytes: binary, copied, truncated, appended
    "echo -e '\\x80\\xff\\x00' > b; wc -c b; cp b c; cmp b c && echo same; md5sum c",
    "head -c 100 /dev/zero > z; md5sum z; truncate -s 50 z; md5sum z; wc -c < z",
    "printf abc > t; truncate -s 5 t; md5sum t; echo more >> t; md5sum t; cat t | wc -c",
    "seq 100000 > s; cp s s2; sha256sum s2; tail -n 1 s2; mv s2 s3; wc -l s3",
    # printf, bash's builtin
    "printf '%5.2f|%-4s|%03d|%x|%o|%e\\n' 3.14159 ab 7 255 8 1234.5",
    "printf '%d\\n' abc; printf '%d\\n' 12abc; printf '%x %i %i\\n' -1 0x1f 010",
    "printf '%b\\n' 'a\\tb'; printf -v x '%s' 5; echo $x; printf '%s=%s\\n' a 1 b 2 c",
    "printf '%*d|%-*s|\\n' 5 42 3 x; printf '%5'; echo \"[$?]\"; printf; echo \"[$?]\"",
    "printf '%c%c|%.3s|\\n' hello; printf '\\101\\x41\\n'; printf '%q\\n' abc",
    # beyond ASCII: word characters, never a variable's name
    "echo é😀 \"ü $((1 + 1))\" 'ß'", "x=1; echo $é $xé ${x}é \"$é\" $, a$ $", "echo $'a$'",
    "cat <<É\nx é\nÉ", "echo {é,ü}", "printf '%s|' é ü; echo",
    # errors
    "nosuchcommand; echo $?", "echo |", "| echo", "echo )", "echo \"abc", "fi", "cat <",
]


def _bash(line: str, directory: str) -> tuple[str, str, int]:
    run = subprocess.run(["bash", "--norc", "--noprofile", "-c", line], cwd=directory,
                         capture_output=True, text=True, timeout=10, executable=BASH,
                         env={"HOME": "/root", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                              "LC_ALL": "C"})
    stderr = re.sub(r"^bash: (-c: )?line \d+: ", "bash: ", run.stderr, flags=re.M)
    # bash -c quotes the line after a syntax error; an interactive shell does not
    stderr = "".join(s for s in stderr.splitlines(keepends=True) if not s.startswith("bash: `"))
    return run.stdout, stderr, run.returncode


def _labsim(line: str) -> tuple[str, str, int]:
    session = Session()
    session.run("mkdir -p /tmp/t && cd /tmp/t")
    result = session.run(line)
    return result.stdout, result.stderr, result.status


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("line", LINES)
def test_a_line_does_what_bash_does(line, tmp_path):
    assert _labsim(line) == _bash(line, str(tmp_path))



SCRIPT = """\
# a script whose commands go on over several lines, as bash reads them
for i in 1 2 3; do
  echo "turn $i"
done | tail -n 2
total=0
while read n; do
  total=$((total + n))
done <<END
4
5
END
echo "total $total"
if [ "$total" -gt 5 ]; then
  echo big
else
  echo small
fi
f() {
  echo "in f: $1"
}
f one
echo "a quote
over two lines"
"""


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_a_script_runs_as_bash_reads_it(tmp_path):
    from labsim.shell.session import run_script

    results = run_script(SCRIPT, Session())
    stdout = "".join(result.stdout for _, result in results)
    assert (stdout, "".join(r.stderr for _, r in results)) == _bash(SCRIPT, str(tmp_path))[:2]
    assert [line.split("\n")[0] for line, _ in results][:2] == ["for i in 1 2 3; do", "total=0"]


INTERLEAVED = [
    "for i in 1 2; do echo out$i; ls nofile$i; done; echo end",
    "seq 2; echo err >&2; seq 3 | tail -n 1; ls x 2>&1 | cat; cat nofile",
    "{ echo a; ls b; } 2>&1 | sort; echo c >&2; echo d",
]


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("line", INTERLEAVED)
def test_the_terminal_gets_both_streams_in_bashs_order(line, tmp_path):
    """bash with both streams on one pipe shows what a terminal shows."""
    combined = subprocess.run(["bash", "--norc", "--noprofile", "-c", line], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=10, executable=BASH,
                              env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}).stdout
    combined = re.sub(r"^bash: line \d+: ", "bash: ", combined, flags=re.M)
    session = Session()
    session.run("mkdir -p /tmp/t && cd /tmp/t")
    result = session.run(line)
    assert "".join(text for _, text in result.output) == combined
    assert {fd for fd, _ in result.output} == {1, 2}
