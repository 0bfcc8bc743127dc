"""Lines to throw at labsim's shell, shared by the CPython tests (tests/unit/
test_shell_robustness.py) and the page's (tests/browser/test_shell_in_page.py): a hypothesis
strategy of random lines made of commands, options, absurd sizes and every piece of bash's
syntax, and absurd requests with the message each must end with."""

from __future__ import annotations

import string

from hypothesis import strategies as st

# What a line may start, contain and end with: commands, options, sizes from zero to absurd,
# files and devices, and every piece of bash's syntax.
COMMANDS = ["echo", "cat", "seq", "yes", "head", "tail", "wc", "sort", "uniq", "grep", "cut",
            "tr", "base64", "sha256sum", "md5sum", "cmp", "stat", "touch", "truncate", "dd",
            "sleep", "ls", "rm", "mkdir", "cp", "mv", "printf", "test", "[", "read", "zpool",
            "zfs", "du", "sync", "true", "false", ":", "eval", "time", "export", "unset",
            "set", "shift", "f", "ping", "fio", "wg", "ip", "tee", "type", "let", "exit"]
WORDS = ["-c", "-n", "-s", "-h", "-l", "-v", "-r", "-u", "-f", "-d", "-w", "-p", "-t", "--", "1",
         "0", "-1", "100000000", "1E", "1e18", "inf", "nan", "64M", "f", "g", "/tmp/x", "p",
         "p/fs", "/p/f", "/dev/zero", "/dev/urandom", "/dev/null", "*", "?", "[a-z]*", "~",
         "$x", "$?", "${x:-d}", "${#x}", "$((1/0))", "$((2**63))", "$(seq 3)", "`echo a`",
         "\"a b\"", "'c d'", "{1..5}", "a{b,c}", "x=1", "create", "list", "status", "get",
         "set", "destroy", "-o", "quota=1E", "if=/dev/zero", "of=f", "bs=1M", "count=1E",
         "10.0.0.1", "all"]
SYNTAX = ["|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", ">&2", "<<<", "(", ")",
          "{", "}", "!", "for i in 1 2; do", "while true; do", "while false; do", "done",
          "if true; then", "fi", "else", "case x in x)", ";;", "esac", "f() {", "<<EOF\nx\nEOF",
          "$(", "\"", "'", "\\", "#", "\n", "[[", "]]", "((", "))"]

TOKEN = st.one_of(st.sampled_from(COMMANDS), st.sampled_from(WORDS), st.sampled_from(SYNTAX),
                  st.text(string.printable, max_size=4))
LINE = st.lists(TOKEN, min_size=1, max_size=12).map(" ".join)


ABSURD = [
    ("truncate -s 1E f; ls -l f", "1152921504606846976"),
    ("yes | head -c 1E > f; ls -l f", "1152921504606846976"),
    ("truncate -s 1E f; cat f", "printing 1152921504606846976 bytes to the terminal is not "
                                "simulated"),
    # a loaded machine may reach the time budget first: either stops the line
    ("for ((i = 0; i < 1000000; i++)); do :; done", "labsim: stopped after"),
    ("while true; do echo y; done | head -n 1", "labsim: stopped after"),
    ("for i in $(seq 1000000); do :; done", "a command substitution of 6888896 bytes"),
    ("sleep 1e18", "goes past the year 9999"),
    ("f() { f; }; f", "nesting deeper than 50"),
    ("echo {1..100000000}", "brace expansion to more than"),
    ("x=$(yes | head -c 100M); echo ${#x}", "a command substitution of 104857600 bytes"),
    ("cat /dev/zero | wc -l", "reading more than"),
    ("sha256sum /dev/urandom", "hashing more than"),
    ("ping -c 100000000 127.0.0.1", "labsim: stopped after"),
]
