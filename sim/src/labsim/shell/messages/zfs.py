"""zfs's texts (cmd/zfs/zfs_main.c, lib/libzfs/libzfs_dataset.c): usage, missing
operands, datasets that do not exist or exist already, property validation
(zfs_valid_proplist(), zprop_parse_value(), zfs_nicestrtonum()), destroy of a root."""

from __future__ import annotations

from labsim.shell.messages.usage_texts import (
    ZFS_COMMAND_ORDER,
    ZFS_SYNOPSES,
    usage_release,
)
from labsim.zfs.versions import ZfsVersion, release_at_least

# The subcommands whose usage goes on with the dataset property table (usage()).
_WITH_PROPERTIES = ("set", "get", "inherit", "list")


def _zfs_usage_tail(version: ZfsVersion) -> str:
    """usage()'s closing lines when it prints no property table; `zfs help` from 2.2."""
    text = ("\nFor the property list, run: zfs set|get\n"
            "\nFor the delegated permission list, run: zfs allow|unallow\n")
    if release_at_least(version, 2, 2):
        text += "\nFor further help on a command or topic, run: zfs help [<topic>]\n"
    return text


def zfs_subcommand_usage(subcommand: str, version: ZfsVersion) -> str:
    """usage(B_FALSE) inside a zfs subcommand: "usage:", ``version``'s synopsis
    (get_usage()), then the lines on the property and permission lists (exit 2).

    Known gap: for set/get/list/inherit the real usage goes on with the whole
    dataset property table ("The following properties are supported: ..."),
    which is not reproduced."""
    text = "usage:\n" + ZFS_SYNOPSES[usage_release(version)][subcommand]
    if subcommand not in _WITH_PROPERTIES:
        text += _zfs_usage_tail(version)
    return text.removesuffix("\n")


def zfs_usage(version: ZfsVersion) -> str:
    """usage(B_FALSE) outside a subcommand: ``version``'s whole command table, the form
    of a dataset's name, and the closing lines (exit 2)."""
    text = "usage: zfs command args ...\nwhere 'command' is one of the following:\n\n"
    synopses = ZFS_SYNOPSES[usage_release(version)]
    for name in ZFS_COMMAND_ORDER[usage_release(version)]:
        text += "\n" if name is None else synopses[name]
    text += "\nEach dataset is of the form: pool/[dataset/]*dataset[@name]\n"
    return (text + _zfs_usage_tail(version)).removesuffix("\n")


def zfs_missing_command(version: ZfsVersion) -> str:
    return "missing command\n" + zfs_usage(version)


def zfs_unrecognized_command(name: str, version: ZfsVersion) -> str:
    """main(): "unrecognized command 'foo'" then the full usage (exit 2)."""
    return f"unrecognized command '{name}'\n" + zfs_usage(version)


def zfs_invalid_option(opt: str) -> str:
    return f"invalid option '{opt if opt == '-' else opt.lstrip('-')}'"


def zfs_missing_argument(opt: str) -> str:
    return f"missing argument for '{opt.lstrip('-')}' option"


def dataset_does_not_exist(name: str) -> str:
    """zfs_open() EZFS_NOENT: "cannot open 'x': dataset does not exist" (exit 1)."""
    return f"cannot open '{name}': dataset does not exist"


def zfs_bad_property(prop: str) -> str:
    """zprop_get_list() for zfs list -o / zfs get: "bad property list: invalid
    property 'xyz'" (then the usage, exit 2)."""
    return f"bad property list: invalid property '{prop}'"


def zfs_set_invalid_property(dataset: str, prop: str) -> str:
    """zfs_valid_proplist() for zfs set: "cannot set property for 'tank': invalid
    property 'xyz'" (exit 1, no usage)."""
    return f"cannot set property for '{dataset}': invalid property '{prop}'"


def no_datasets_available() -> str:
    """zfs list with nothing to list: "no datasets available" on *stderr*, exit 0
    (zfs_do_list)."""
    return "no datasets available"


def zfs_missing_property_argument() -> str:
    """zfs_do_get(): "missing property argument" (usage, exit 2)."""
    return "missing property argument"


def zfs_missing_dataset(subcommand: str = "set") -> str:
    """The missing-operand line of each subcommand (usage follows, exit 2):
    set "missing dataset name(s)", create "missing filesystem argument",
    destroy "missing dataset argument"."""
    return {"set": "missing dataset name(s)", "create": "missing filesystem argument",
            "destroy": "missing dataset argument"}.get(subcommand, "missing dataset argument")


def zfs_missing_assignment() -> str:
    """zfs_do_set() with only a dataset: "missing property=value argument(s)"."""
    return "missing property=value argument(s)"


def zfs_missing_equals(assignment: str = "") -> str:
    """parseprop(): "missing '=' for property=value argument" (usage, exit 2)."""
    return "missing '=' for property=value argument"


def zfs_readonly_property(dataset: str, prop: str) -> str:
    """zfs_valid_proplist(): "cannot set property for 'tank': 'used' is readonly"."""
    return f"cannot set property for '{dataset}': '{prop}' is readonly"


_COMPRESSION_VALUES = ("on | off | lzjb | gzip | gzip-[1-9] | zle | lz4 | zstd | zstd-[1-19] "
                       "| zstd-fast | zstd-fast-[1-10,20,30,40,50,60,70,80,90,100,500,1000]")
_INDEX_VALUES = {
    "compression": _COMPRESSION_VALUES,
    "checksum": "on | off | fletcher2 | fletcher4 | sha256 | sha512 | skein | edonr",
    "dedup": ("on | off | verify | sha256[,verify] | sha512[,verify] | skein[,verify] | "
              "edonr,verify"),
    "atime": "on | off", "relatime": "on | off", "readonly": "on | off",
    "canmount": "on | off | noauto", "copies": "1 | 2 | 3",
    "sync": "standard | always | disabled", "xattr": "on | off | dir | sa",
    "logbias": "latency | throughput",
}


def _set_action(action: str, dataset: str) -> str:
    # zfs_prop_set_list(): "cannot set property for '%s'"; zfs_create: "cannot create '%s'"
    return f"cannot create '{dataset}'" if action == "create" \
        else f"cannot set property for '{dataset}'"


def zfs_bad_index_value(dataset: str, prop: str, action: str = "set") -> str:
    """zprop_parse_value() for index properties: "'compression' must be one of
    '<values>'" with the value list registered in module/zcommon/zfs_prop.c."""
    return f"{_set_action(action, dataset)}: '{prop}' must be one of '{_INDEX_VALUES[prop]}'"


def zfs_bad_compression(dataset: str, action: str = "set") -> str:
    """"cannot set property for 'tank': 'compression' must be one of 'on | off |
    lzjb | gzip | gzip-[1-9] | zle | lz4 | zstd | zstd-[1-19] | zstd-fast |
    zstd-fast-[1-10,20,30,40,50,60,70,80,90,100,500,1000]'" (exit 1)."""
    return zfs_bad_index_value(dataset, "compression", action)


def zfs_bad_numeric_value(dataset: str, prop: str, value: str, action: str = "set") -> str:
    """zfs_nicestrtonum() (lib/libzfs/libzfs_util.c): "bad numeric value 'abc'"
    for a value not starting with a digit, "invalid numeric suffix 'X'" for a
    bad unit (exit 1).  ``prop`` is not part of the text."""
    text = value.strip()
    if not text or not (text[0].isdigit() or text[0] == "."):
        reason = f"bad numeric value '{value}'"
    else:
        i = 0
        while i < len(text) and (text[i].isdigit() or text[i] == "."):
            i += 1
        reason = f"invalid numeric suffix '{text[i:].lstrip()}'"
    return f"{_set_action(action, dataset)}: {reason}"


def zfs_bad_recordsize(dataset: str, action: str = "set", max_text: str = "1M") -> str:
    """zfs_valid_proplist() ZFS_PROP_RECORDSIZE: "'recordsize' must be power of 2
    from 512B to 1M" -- the maximum is the pool's maxblocksize, 1M with the 2.1
    default zfs_max_recordsize (exit 1)."""
    return f"{_set_action(action, dataset)}: 'recordsize' must be power of 2 from 512B to " \
           f"{max_text}"


def zfs_create_missing_pool(name: str) -> str:
    """check_parents() with no '/': "cannot create 'tank': missing dataset name"."""
    return f"cannot create '{name}': missing dataset name"


def zfs_create_no_such_pool(name: str) -> str:
    """check_parents(): "cannot create 'x/fs': no such pool 'x'"."""
    return f"cannot create '{name}': no such pool '{name.split('/')[0]}'"


def zfs_create_missing_parent(name: str) -> str:
    """check_parents(): "cannot create 'tank/a/b': parent does not exist"."""
    return f"cannot create '{name}': parent does not exist"


def zfs_dataset_exists(name: str) -> str:
    """zfs_create() EEXIST: "cannot create 'tank/fs': dataset already exists"."""
    return f"cannot create '{name}': dataset already exists"


def zfs_destroy_root(pool: str) -> str:
    """zfs_do_destroy() on a pool's root dataset (three lines, exit 1)."""
    return (f"cannot destroy '{pool}': operation does not apply to pools\n"
            f"use 'zfs destroy -r {pool}' to destroy all datasets in the pool\n"
            f"use 'zpool destroy {pool}' to destroy the pool itself")


