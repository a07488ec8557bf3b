"""The command line of fabemu's Python tools (`fabemu sweep`, `fabemu pcap`),
in the style of fabemu's own commands (CLI11, control/cli/cli.cpp): the same
help layout, the same error lines, exit 2 for a bad command line with a
did-you-mean for a misspelt option, `--version` with the commit, and `-` for
standard output. Python 3 standard library only."""

import difflib
import os
import subprocess
import sys
import tempfile

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2  # as fabemu's own (control/cli/cli.h)
HELP_COLUMN = 30  # where CLI11 starts an option's description
MORE = "Run with --help for more information."


def prog(default):
    """The command's name in messages: `fabemu sweep` when run through fabemu."""
    return os.environ.get("FABEMU_TOOL_PROG") or default


def shown(value, limit=300):
    """`value` as a message shows it: at most `limit` characters and then how
    long it was, so that a 100 kB argument is not echoed whole."""
    value = str(value)
    return value if len(value) <= limit else f"{value[:limit]}... ({len(value)} characters)"


def version_line():
    """fabemu's own `--version` line: FABEMU_VERSION as `fabemu` exports it to
    its tools, else asked of FABEMU_BIN or the fabemu on PATH; None if neither."""
    line = os.environ.get("FABEMU_VERSION")
    if line:
        return line
    try:
        p = subprocess.run([os.environ.get("FABEMU_BIN") or "fabemu", "--version"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None


class Option:
    __slots__ = ("names", "dest", "metavar", "help", "repeat", "convert", "default")

    def __init__(self, names, dest, metavar, help, repeat, convert, default):
        self.names, self.dest, self.metavar, self.help = names, dest, metavar, help
        self.repeat, self.convert, self.default = repeat, convert, default

    def label(self):
        """As CLI11 lists it: `-j,--jobs N`, `-s,--set KEY=VALUE ...`."""
        text = ",".join(sorted(self.names, key=len))
        if self.metavar:
            text += " " + self.metavar + (" ..." if self.repeat else "")
        return text


class Options:
    """The parsed command line: one attribute per option and positional."""

    def __init__(self, values):
        self.__dict__.update(values)


class CommandLine:
    """A tool's options and positionals, its help and its errors. Options are
    long (`--json OUT` or `--json=OUT`) with an optional short alias; a value
    option takes the next argument whatever it is, unless that is another
    option (`-` alone and negative numbers are values); `--` ends options.
    Names are matched whole: no abbreviations, as in CLI11."""

    def __init__(self, command, description, footer=""):
        self.command = command  # `sweep`: its name in "is not an option of sweep"
        self.prog = prog(f"fabemu-{command}")
        self.description = description
        self.footer = footer
        self.options = []
        self.by_name = {}
        self.positional = None
        self.required_unless = None
        self.count = None
        self.option("-h", "--help", help="Print this help message and exit")
        self.option("--version", help="Display program version information and exit")

    def option(self, *names, metavar=None, help="", repeat=False, convert=None, default=None,
               dest=None):
        """A flag (no metavar) or an option taking a value; `repeat` collects a list.
        `convert(text)` returns the value or raises ValueError saying what is wrong."""
        dest = dest or max(names, key=len).lstrip("-").replace("-", "_")
        if repeat and default is None:
            default = []
        if metavar is None and default is None:
            default = False
        o = Option(names, dest, metavar, help, repeat, convert, default)
        self.options.append(o)
        for n in names:
            self.by_name[n] = o

    def positionals(self, name, help, dest, required_unless=None, count=None):
        """One or more positional arguments (the tools take a list of files),
        required unless the option `required_unless` is given; with `count`,
        exactly that many (`name` then names each, e.g. "OUT SIZE")."""
        self.positional = (name, help, dest)
        self.required_unless = required_unless
        self.count = count

    def usage_error(self, message, more=True):
        """A bad command line: the message (and CLI11's pointer to --help), exit 2."""
        sys.stderr.write(message.rstrip("\n") + "\n" + (MORE + "\n" if more else ""))
        sys.exit(EXIT_USAGE)

    def error(self, message):
        """A bad value the tool found itself: `fabemu sweep: MESSAGE`, exit 2."""
        sys.stderr.write(f"{self.prog}: {message}\n")
        sys.exit(EXIT_USAGE)

    def help(self):
        name, phelp, _ = self.positional
        many = "" if self.count else "..."
        lines = [self.description, f"Usage: {self.prog} [OPTIONS] {name}{many}", "",
                 "Positionals:",
                 self._entry(f"{name} TEXT {many or ''}".rstrip() +
                             ("" if self.required_unless else " REQUIRED"), phelp), "", "Options:"]
        lines += [self._entry(o.label(), o.help) for o in self.options]
        out = "\n".join(lines) + "\n"
        return out + ("\n" + self.footer.rstrip("\n") + "\n" if self.footer else "")

    @staticmethod
    def _entry(label, text):
        if len(label) + 2 < HELP_COLUMN:
            return f"  {label:{HELP_COLUMN - 2}}{text}"
        return f"  {label}\n{'':{HELP_COLUMN}}{text}"

    def _suggest(self, arg):
        """'--sett is not an option of sweep: did you mean --set?' or ''."""
        if not arg.startswith("--") or len(arg) < 3:
            return ""
        name = arg.split("=", 1)[0]
        longs = [n for n in self.by_name if n.startswith("--")]
        close = difflib.get_close_matches(name, longs, n=1, cutoff=0.6)
        return (f"{shown(name, 100)} is not an option of {self.command}: did you mean "
                f"{close[0]}?\n") if close else ""

    def parse(self, argv):
        values = {o.dest: (list(o.default) if o.repeat else o.default) for o in self.options}
        files = []
        unexpected = []
        i = 0
        only_positionals = False
        while i < len(argv):
            arg = argv[i]
            i += 1
            if only_positionals or arg == "-" or not arg.startswith("-") or is_number(arg):
                files.append(arg)
                continue
            if arg == "--":
                only_positionals = True
                continue
            name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            o = self.by_name.get(name)
            if o is None:
                unexpected.append(arg)
                continue
            if o.dest == "help":
                sys.stdout.write(self.help())
                sys.exit(EXIT_OK)
            if o.dest == "version":
                line = version_line()
                if line is None:
                    sys.stderr.write(f"{self.prog}: cannot tell the version: run it as `fabemu "
                                     f"{self.command}`, or set FABEMU_BIN to a fabemu binary\n")
                    sys.exit(EXIT_FAILED)
                print(line)
                sys.exit(EXIT_OK)
            if not o.metavar:
                if eq:
                    self.usage_error(f"{name}: takes no value (given '{shown(inline, 100)}')")
                values[o.dest] = True
                continue
            if eq:
                text = inline
            elif i < len(argv) and not self._is_option(argv[i]):
                text = argv[i]
                i += 1
            else:
                self.usage_error(f"{name}: 1 required {o.metavar} missing")
            if o.convert:
                try:
                    text = o.convert(text)
                except ValueError as e:
                    self.usage_error(f"{name}: {e}")
            if o.repeat:
                values[o.dest].append(text)
            else:
                values[o.dest] = text
        if unexpected:
            word = "argument was" if len(unexpected) == 1 else "arguments were"
            self.usage_error(
                f"The following {word} not expected: " + " ".join(shown(u) for u in unexpected) +
                "\n" + MORE + "\n" + "".join(self._suggest(u) for u in unexpected), more=False)
        name, _, dest = self.positional
        if not files and not values.get(self.required_unless):
            self.usage_error(f"{name} is required")
        if self.count and len(files) != self.count:
            self.usage_error(f"{name}: give {self.count} arguments, not {len(files)} "
                             f"({' '.join(shown(f, 100) for f in files)})")
        values[dest] = files
        return Options(values)

    def _is_option(self, arg):
        return arg.startswith("-") and arg != "-" and not is_number(arg)


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def positive_float(text):
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"'{shown(text)}' is not a number")
    if not 0 < v < float("inf"):
        raise ValueError(f"{shown(text)} must be a positive number")
    return v


def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"'{shown(text)}' is not an integer")
    if v < 1:
        raise ValueError(f"{shown(text)} must be at least 1")
    return v


def output_problem(path):
    """None when `path` can be written (`-` is standard output), else what is
    wrong with it. A new file is tried by making and removing one beside it: a
    missing or read-only folder, and permissions, are all found."""
    if path == "-":
        return None
    if os.path.isdir(path):
        return "is a directory: give a file name"
    try:
        if os.path.exists(path):
            if os.path.isfile(path):
                os.close(os.open(path, os.O_WRONLY))
            elif not os.access(path, os.W_OK):
                raise PermissionError(13, os.strerror(13))
            return None
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            return f"the folder {folder} does not exist: create it first"
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        return f"cannot write there ({e.strerror}): choose a file you may write"
    return None


def one_stdout(cmd, outputs):
    """At most one of the (option, path) outputs may be `-`: exits 2 otherwise.
    Returns the stream for the human text: standard error when an output has
    standard output, else standard output."""
    dashes = [opt for opt, path in outputs if path == "-"]
    if len(dashes) > 1:
        cmd.error(f"{' and '.join(dashes)} give '-': only one output can be standard "
                  "output; give the others a file")
    return sys.stderr if dashes else sys.stdout


def write_output(path, fill, binary=False):
    """Calls fill(stream) on `path` opened for writing, or on standard output
    for `-`. An OSError names the file."""
    if path == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        fill(stream)
        stream.flush()
        return
    try:
        with open(path, "wb" if binary else "w", **({} if binary else {"newline": ""})) as f:
            fill(f)  # the close flushes: a full disk shows there
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from e
