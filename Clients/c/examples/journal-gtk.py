#!/usr/bin/python3
"""journal-gtk: a small GTK 4 journaling app in Python on libjournalingsuggestions-1.

"New Entry from a Suggestion" presents pickerd's picker over this window; when the person approves
a suggestion, the app writes a Markdown entry of the items they kept (media copied beside it) and
shows it. With --auto it presents at start, prints the entry's path and quits (how CI runs it).

    journal-gtk.py --output DIR [--runtime-dir DIR] [--auto]

Exit status with --auto: 0 an entry was written, 3 cancelled, 4 dismissed, 1 an error.
"""
import argparse
import datetime
import os
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("JournalingSuggestions", "1.0")
gi.require_version("JournalingSuggestionsGtk4", "1.0")
from gi.repository import GLib, Gtk  # noqa: E402
from gi.repository import JournalingSuggestions as JS  # noqa: E402
from gi.repository import JournalingSuggestionsGtk4 as JSGtk  # noqa: E402

TEXT_FIELDS = ("title", "song", "episode", "place", "name", "prompt", "localized-name")


def describe(item):
    fields = item.get_fields().unpack()
    text = next((fields[k] for k in TEXT_FIELDS if k in fields), "")
    if not text and "steps" in fields:
        text = f"{fields['steps']} steps"
    return text


def write_entry(output, suggestion):
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    path = os.path.join(output, stamp + ".md")
    media_dir = path[:-3] + "-media"
    lines = [f"# {suggestion.get_title()}", ""]
    for item in suggestion.get_items():
        lines.append(f"- **{item.get_kind_name()}** {describe(item)}")
        for media in item.get_media():
            saved = media.save(media_dir)
            lines.append(f"  ![{media.get_role()}]({stamp}-media/{os.path.basename(saved)})")
    with open(path, "w", encoding="utf-8") as entry:
        entry.write("\n".join(lines) + "\n")
    return path


class JournalWindow(Gtk.ApplicationWindow):
    def __init__(self, app, options):
        super().__init__(application=app, title="Journal GTK")
        self.options = options
        self.picker = JS.Picker(button_title="Add to Journal GTK", runtime_dir=options.runtime_dir)
        self.button = Gtk.Button(label="New Entry from a Suggestion")
        self.button.connect("clicked", lambda _button: self.new_entry())
        self.label = Gtk.Label(label="No entry yet.", wrap=True, selectable=True)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin_top=12, margin_bottom=12,
                      margin_start=12, margin_end=12)
        box.append(self.button)
        box.append(self.label)
        self.set_child(box)
        self.set_default_size(480, 320)

    def new_entry(self):
        self.button.set_sensitive(False)
        # The picker opens over this window: its X11 id, or a Wayland handle exported for it.
        JSGtk.gtk_window_export_parent(self, None, self.exported)

    def exported(self, window, result):
        parent = JSGtk.gtk_window_export_parent_finish(window, result)
        print(f"journal-gtk: presenting over the parent window {parent!r}", file=sys.stderr, flush=True)
        self.picker.present(parent, None, None, self.presented)

    def presented(self, picker, result):
        self.button.set_sensitive(True)
        status = 1
        try:
            outcome = picker.present_finish(result)
            if outcome.get_kind() == JS.OutcomeKind.APPROVED:
                path = write_entry(self.options.output, outcome.get_suggestion())
                self.label.set_text(open(path, encoding="utf-8").read())
                print(path, flush=True)
                status = 0
            else:
                status = 3 if outcome.get_kind() == JS.OutcomeKind.CANCELLED else 4
                self.label.set_text("Nothing was added.")
        except GLib.Error as error:
            print(f"journal-gtk: {error.message}", file=sys.stderr)
            self.label.set_text(error.message)
        if self.options.auto:
            self.get_application().status = status
            self.get_application().quit()


class JournalApp(Gtk.Application):
    def __init__(self, options):
        super().__init__(application_id="org.example.JournalGtk")
        self.options = options
        self.status = 1

    def do_activate(self):
        window = JournalWindow(self, self.options)
        if self.options.auto:
            # Once the window is on screen, so that it has a handle to be the picker's parent.
            window.connect("map", lambda _window: GLib.idle_add(window.new_entry))
        window.present()


def main():
    parser = argparse.ArgumentParser(description="a small GTK 4 journaling app")
    parser.add_argument("--output", required=True, help="where entries are written")
    parser.add_argument("--runtime-dir", default=None, help="pickerd's runtime directory")
    parser.add_argument("--auto", action="store_true", help="present at start, then quit")
    options = parser.parse_args()
    os.makedirs(options.output, exist_ok=True)
    app = JournalApp(options)
    app.run([sys.argv[0]])
    return app.status if options.auto else 0


if __name__ == "__main__":
    sys.exit(main())
