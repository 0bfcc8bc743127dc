"""The options the GNU and util-linux tools labsim answers for have on a real system, so that
one labsim does not model is said to be not simulated rather than refused as invalid: a
refusal of what the real tool accepts (``ls -i``, ``cat -n``, ``rm -i``) teaches a
falsehood.

Read from the manual pages of Debian 13's packages (GNU coreutils 9.7, grep 3.11, diffutils
3.10 for cmp, util-linux 2.41 for fallocate): every short option letter and long option
name they document, for each tool. Each command parses with getopt the options it models
and, when getopt refuses one, asks not_simulated_option() whether the real tool has it.
"""

from __future__ import annotations

import getopt

from labsim.format import coreutils as fmt
from labsim.shell import messages as msg
from labsim.shell.base import UsageError

# tool -> (short option letters, long option names), as documented.
REAL_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "base64": ("diw", (
        "decode", "help", "ignore-garbage", "version", "wrap")),
    "cat": ("AETbenstuv", (
        "help", "number", "number-nonblank", "show-all", "show-ends", "show-nonprinting",
        "show-tabs", "squeeze-blank", "version")),
    "cmp": ("bilnsv", (
        "bytes", "help", "ignore-initial", "print-bytes", "quiet", "silent", "verbose",
        "version")),
    "cp": ("HLPRSTZabdfilnprstuvx", (
        "archive", "attributes-only", "backup", "context", "copy-contents", "debug",
        "dereference", "force", "help", "interactive", "keep-directory-symlink", "link",
        "no-clobber", "no-dereference", "no-preserve", "no-target-directory",
        "one-file-system", "parents", "preserve", "recursive", "reflink",
        "remove-destination", "sparse", "strip-trailing-slashes", "suffix",
        "symbolic-link", "target-directory", "update", "verbose", "version")),
    "cut": ("Mbcdfnsz", (
        "bytes", "characters", "complement", "delimiter", "fields", "help",
        "only-delimited", "output-delimiter", "version", "zero-terminated")),
    "df": ("BHPTahikltvx", (
        "all", "block-size", "exclude-type", "help", "human-readable", "inodes", "local",
        "no-sync", "output", "portability", "print-type", "si", "sync", "total", "type",
        "version")),
    "du": ("0BDHLPSXabcdhklmstx", (
        "all", "apparent-size", "block-size", "bytes", "count-links", "dereference",
        "dereference-args", "exclude", "exclude-from", "files0-from", "help",
        "human-readable", "inodes", "max-depth", "no-dereference", "null",
        "one-file-system", "separate-dirs", "si", "summarize", "threshold", "time",
        "time-style", "total", "version")),
    "fallocate": ("Vcdhilnopvxz", (
        "collapse-range", "dig-holes", "help", "insert-range", "keep-size", "length",
        "offset", "posix", "punch-hole", "sparse", "verbose", "version", "zero-range")),
    "grep": ("01ABCDEFGHILPRTUVZabcdefhilmnoqrsvwxz", (
        "after-context", "basic-regexp", "before-context", "binary", "binary-files",
        "byte-offset", "color", "colour", "context", "count", "dereference-recursive",
        "devices", "directories", "exclude", "exclude-dir", "exclude-from",
        "extended-regexp", "file", "files-with-matches", "files-without-match",
        "fixed-strings", "group-separator", "help", "ignore-case", "include",
        "initial-tab", "invert-match", "label", "line-buffered", "line-number",
        "line-regexp", "max-count", "no-filename", "no-group-separator", "no-ignore-case",
        "no-messages", "null", "null-data", "only-matching", "perl-regexp", "quiet",
        "recursive", "regexp", "silent", "text", "version", "with-filename", "word-regexp")),
    "head": ("cnqvz", (
        "bytes", "help", "lines", "quiet", "silent", "verbose", "version",
        "zero-terminated")),
    "ls": ("1ABCDFGHILNQRSTUXZabcdfghiklmnopqrstuvwx", (
        "all", "almost-all", "author", "block-size", "classify", "color", "context",
        "dereference", "dereference-command-line",
        "dereference-command-line-symlink-to-dir", "directory", "dired", "escape",
        "file-type", "format", "full-time", "group-directories-first", "help", "hide",
        "hide-control-chars", "human-readable", "hyperlink", "ignore", "ignore-backups",
        "indicator-style", "inode", "kibibytes", "literal", "no-group", "numeric-uid-gid",
        "quote-name", "quoting-style", "recursive", "reverse", "show-control-chars", "si",
        "size", "sort", "tabsize", "time", "time-style", "version", "width", "zero")),
    "md5sum": ("bctwz", (
        "binary", "check", "help", "ignore-missing", "quiet", "status", "strict", "tag",
        "text", "version", "warn", "zero")),
    "mkdir": ("Zmpv", (
        "context", "help", "mode", "parents", "verbose", "version")),
    "mv": ("STZbfintuv", (
        "backup", "context", "debug", "exchange", "force", "help", "interactive",
        "no-clobber", "no-copy", "no-target-directory", "strip-trailing-slashes", "suffix",
        "target-directory", "update", "verbose", "version")),
    "rm": ("IRdfirv", (
        "dir", "force", "help", "interactive", "no-preserve-root", "one-file-system",
        "preserve-root", "recursive", "verbose", "version")),
    "seq": ("fsw", (
        "equal-width", "format", "help", "separator", "version")),
    "sha1sum": ("bctwz", (
        "binary", "check", "help", "ignore-missing", "quiet", "status", "strict", "tag",
        "text", "version", "warn", "zero")),
    "sha256sum": ("bctwz", (
        "binary", "check", "help", "ignore-missing", "quiet", "status", "strict", "tag",
        "text", "version", "warn", "zero")),
    "sha512sum": ("bctwz", (
        "binary", "check", "help", "ignore-missing", "quiet", "status", "strict", "tag",
        "text", "version", "warn", "zero")),
    "sleep": ("", (
        "help", "version")),
    "sort": ("CMRSTVbcdfghikmnorstuz", (
        "batch-size", "buffer-size", "check", "compress-program", "debug",
        "dictionary-order", "field-separator", "files0-from", "general-numeric-sort",
        "help", "human-numeric-sort", "ignore-case", "ignore-leading-blanks",
        "ignore-nonprinting", "key", "merge", "month-sort", "numeric-sort", "output",
        "parallel", "random-sort", "random-source", "reverse", "sort", "stable",
        "temporary-directory", "unique", "version", "version-sort", "zero-terminated")),
    "stat": ("Lcft", (
        "cached", "dereference", "file-system", "format", "help", "printf", "terse",
        "version")),
    "sync": ("df", (
        "data", "file-system", "help", "version")),
    "tail": ("Fcfnqsvz", (
        "bytes", "follow", "help", "lines", "max-unchanged-stats", "pid", "quiet", "retry",
        "silent", "sleep-interval", "verbose", "version", "zero-terminated")),
    "tee": ("aip", (
        "append", "help", "ignore-interrupts", "output-error", "version")),
    "touch": ("acdfhmrt", (
        "date", "help", "no-create", "no-dereference", "reference", "time", "version")),
    "tr": ("Ccdst", (
        "complement", "delete", "help", "squeeze-repeats", "truncate-set1", "version")),
    "truncate": ("cors", (
        "help", "io-blocks", "no-create", "reference", "size", "version")),
    "uniq": ("Dcdfisuwz", (
        "all-repeated", "check-chars", "count", "group", "help", "ignore-case", "repeated",
        "skip-chars", "skip-fields", "unique", "version", "zero-terminated")),
    "wc": ("Lclmw", (
        "bytes", "chars", "files0-from", "help", "lines", "max-line-length", "total",
        "version", "words")),
    "yes": ("", (
        "help", "version")),
}


def is_real_option(tool: str, option: str) -> bool:
    """Whether ``tool`` has ``option`` as getopt reports it: a letter, or a long name or an
    abbreviation of one (getopt_long() takes any prefix that names one option, or several
    that are one option's synonyms; labsim counts any prefix)."""
    real = REAL_OPTIONS.get(tool)
    if real is None or not option:
        return False
    short, long = real
    if len(option) == 1:
        return option in short
    name = option.split("=", 1)[0]
    return any(known.startswith(name) for known in long)


def not_simulated_option(tool: str, err: getopt.GetoptError) -> UsageError | None:
    """The notice for an option getopt refused that the real ``tool`` has (None when the
    real tool refuses it too: the caller gives the tool's own message). An option that
    lacks its argument is the caller's to report, as the real tool does."""
    if "requires argument" in err.msg or "must not have an argument" in err.msg:
        return None
    if not is_real_option(tool, err.opt):
        return None
    shown = f"-{err.opt}" if len(err.opt) == 1 else f"--{err.opt}"
    return UsageError(msg.notice(f"{tool} option {shown}"), 1)


def option_error(tool: str, err: getopt.GetoptError) -> UsageError:
    """What ``tool`` says of the option getopt refused: the notice when the real tool has
    it, else the GNU tool's own complaint (glibc getopt's text, then "Try 'TOOL --help'
    for more information.", exit status 1)."""
    return not_simulated_option(tool, err) or UsageError(
        f"{tool}: {fmt.getopt_message(err)}\nTry '{tool} --help' for more information.", 1)


def unmodelled_option(tool: str, arg: str) -> UsageError:
    """option_error() for a command that reads its options by hand (seq, head, yes):
    ``arg`` is the first one it does not model, as typed ("-q", "--format=%g")."""
    opt = arg[2:].split("=", 1)[0] if arg.startswith("--") else arg[1:2]
    return option_error(tool, getopt.GetoptError(f"option {arg} not recognized", opt))
