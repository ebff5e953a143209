"""rednotebook-suggestions: RedNotebook with "Insert a journaling suggestion".

Starts Debian's RedNotebook, unmodified, as its own start-up script does, and adds the action
(journaling_suggestions.py) to its main window once it is built: RedNotebook has no plugin interface,
and its Journal is a Gtk.Application this subclasses. Run by the rednotebook-suggestions program
(rednotebook-suggestions.c), whose executable is what pickerd knows RedNotebook by.

    rednotebook-suggestions [--suggestion-url URL] [RedNotebook's own arguments: --date DATE, JOURNAL]

--suggestion-url: a reminder's URL (rednotebook://suggestion/<id>): RedNotebook opens on today and
presents the picker on the suggestion it names (a bare rednotebook: URL too, as the desktop entry's
URL handler passes it). When RedNotebook with suggestions already runs, the
URL goes to it (GApplication's command line) and the running window presents.
"""
import os
import sys

URL_OPTION = "--suggestion-url"


def take_url(arguments):
    """The reminder URL among the arguments, and the arguments without it (RedNotebook's own)."""
    url, rest, index = None, [], 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == URL_OPTION and index + 1 < len(arguments):
            url = arguments[index + 1]
            index += 2
            continue
        if argument.startswith(URL_OPTION + "="):
            url = argument[len(URL_OPTION) + 1:]
        elif argument.startswith("rednotebook:"):  # as a desktop's URL handler passes it (Exec=… %u)
            url = argument
        else:
            rest.append(argument)
        index += 1
    return url, rest


def main():
    arguments = sys.argv[1:]
    _url, rednotebook_arguments = take_url(arguments)
    # RedNotebook reads its arguments when its module is imported: it sees only its own.
    sys.argv = ["rednotebook-suggestions"] + rednotebook_arguments
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import rednotebook  # noqa: F401  (installed where Python looks: pip, or a distribution's)
    except ImportError:
        sys.path.insert(0, "/usr/share/rednotebook")  # where Debian's rednotebook installs it
    from gi.repository import GLib
    from rednotebook import journal as rednotebook_journal  # RedNotebook's start-up: logging, GTK 3
    import journaling_suggestions

    class Journal(rednotebook_journal.Journal):
        def do_startup(self):
            super().do_startup()  # the main window exists from here on
            self.journaling_suggestions = journaling_suggestions.JournalingSuggestions(self)
            self.journaling_suggestions.install()

        def do_command_line(self, command_line):
            status = super().do_command_line(command_line)
            url, _rest = take_url(command_line.get_arguments()[1:])
            if url:
                # Once the window is on screen, so that it has an X11 window to be the picker's parent.
                GLib.idle_add(lambda: self.journaling_suggestions.present_url(url) and False)
            return status

    journal = Journal()
    rednotebook_journal.utils.setup_signal_handlers(journal)
    journal.run([sys.argv[0]] + arguments)


main()
