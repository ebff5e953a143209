# -----------------------------------------------------------------------
# Insert a journaling suggestion: RedNotebook presents pickerd's picker.
#
# The same file serves the add-on (Clients/rednotebook/rednotebook-suggestions, which starts an
# unmodified RedNotebook and adds the action) and the patch offered upstream
# (Clients/rednotebook/rednotebook-journaling-suggestions.patch, where it is
# rednotebook/gui/journaling_suggestions.py). It uses only libjournalingsuggestions-1 through GObject
# introspection (no GTK 4 helper in RedNotebook's GTK 3 process) and RedNotebook's own objects: the
# journal (Gtk.Application), its main window, the day editor, the status bar.
#
# MIT licence, as pickerd (it is offered to RedNotebook under its GPL-2.0-or-later as well).
# -----------------------------------------------------------------------
"""The "Insert a journaling suggestion" action for RedNotebook.

What the person approved in the picker is written into the day being edited, in RedNotebook's own
markup: the suggestion's title as a heading, one list line per item, and photos as image markup
pointing at copies in a folder inside the journal (``journaling-suggestions/<date-time>/``), made
from the read-only copies pickerd released, never a path into pickerd's store. Anything short of an
approval that was written out whole (pickerd not running, the person cancelled, nothing kept, a copy
that failed half-way) leaves the day's text as it was and says so in the status bar.
"""

import ctypes
import datetime
import logging
import os
import shutil
import tempfile

import gi

gi.require_version("Gtk", "3.0")  # RedNotebook's (GTK 3): no GTK 4 helper in its process
from gi.repository import GLib, Gtk  # noqa: E402

try:
    gi.require_version("JournalingSuggestions", "1.0")
    from gi.repository import JournalingSuggestions as JS
except (ValueError, ImportError) as error:  # the typelib is not installed: no action, no failure
    JS = None
    UNAVAILABLE = str(error)
else:
    UNAVAILABLE = None

try:
    gi.require_version("GdkX11", "3.0")
    from gi.repository import GdkX11
except (ValueError, ImportError):
    GdkX11 = None


ACTION_NAME = "InsertJournalingSuggestion"
ACTION_LABEL = "Insert a journaling suggestion"
ACTION_TOOLTIP = "Choose a moment from your photos, workouts, places and music, and insert what you keep"
BUTTON_TITLE = "Insert into RedNotebook"
# The folder, inside the journal's data folder, that the suggestions' pictures are copied into:
# RedNotebook resolves relative picture paths against the data folder, and its backups (a zip of
# that folder) keep them with the entries.
MEDIA_FOLDER = "journaling-suggestions"
# The reminder URL the manifest declares (JSNotificationURLFormat).
NOTIFICATION_URL_FORMAT = "rednotebook://suggestion/{journaling-suggestion-id}"

# RedNotebook's picture markup takes these (rednotebook/util/markup.py, PIC_EXT).
PICTURE_EXTENSIONS = {"png", "jpg", "jpeg", "gif", "bmp", "svg"}

# HKStateOfMind.Label and ValenceClassification raw values (Protocol/pickerd/v1/assets.proto).
MOOD_LABELS = (
    "", "amazed", "amused", "angry", "anxious", "ashamed", "brave", "calm", "content", "disappointed",
    "discouraged", "disgusted", "embarrassed", "excited", "frustrated", "grateful", "guilty", "happy",
    "hopeless", "irritated", "jealous", "joyful", "lonely", "passionate", "peaceful", "proud", "relieved",
    "sad", "scared", "stressed", "surprised", "worried", "annoyed", "confident", "drained", "hopeful",
    "indifferent", "overwhelmed", "satisfied",
)
VALENCE = ("", "very unpleasant", "unpleasant", "slightly unpleasant", "neutral", "slightly pleasant",
           "pleasant", "very pleasant")


class SuggestionFailed(Exception):
    """A step of writing the approved suggestion out failed: nothing is inserted."""


# --- what an item says, in RedNotebook's markup ---------------------------------------------------

def _escape(text):
    """A value as plain text in txt2tags: one line, and no markup it did not mean (a title holding
    ** or // or [ ] would otherwise turn bold, italic or into a link)."""
    text = " ".join(str(text).split()).replace("[", "(").replace("]", ")")
    for mark in ("**", "//", "__", "--", "``", "''"):
        text = text.replace(mark, mark[0] + "\u200b" + mark[1])
    return text


def _duration(start_ms, end_ms):
    minutes = max(0, round((end_ms - start_ms) / 60000))
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def _measure(value):
    """A (ds) field: a value and its unit."""
    amount, unit = value
    if unit == "m" and amount >= 1000:
        amount, unit = amount / 1000, "km"
    return f"{amount:.1f} {unit}" if amount != int(amount) else f"{int(amount)} {unit}"


def _workout_line(fields):
    name = fields.get("localized-name") or "Workout"
    parts = []
    if "distance" in fields:
        parts.append(_measure(fields["distance"]))
    if "date-start" in fields and "date-end" in fields:
        parts.append(_duration(fields["date-start"], fields["date-end"]))
    line = f"**{_escape(name)}**"
    if parts:
        line += ": " + " in ".join(parts)
    if "active-energy-burned" in fields:
        line += f", {_measure(fields['active-energy-burned'])}"
    return line


def _mood_line(fields):
    kind = "Mood of the day" if fields.get("kind") == "dailyMood" else "Feeling"
    valence = fields.get("valence-classification", 0)
    words = [VALENCE[valence]] if 0 < valence < len(VALENCE) else []
    labels = [MOOD_LABELS[label] for label in fields.get("labels", []) if 0 < label < len(MOOD_LABELS)]
    line = f"**{kind}**: " + (", ".join(words) if words else "noted")
    if labels:
        line += " (" + ", ".join(labels) + ")"
    return line


def item_line(item):
    """One list line for an approved item, in RedNotebook's style, without its pictures."""
    fields = item.get_fields().unpack()
    kind = item.get_kind_name()
    if kind == "workout":
        return _workout_line(fields)
    if kind == "workoutGroup":
        workouts = fields.get("workouts", [])
        names = ", ".join(_escape(w.get("localized-name", "workout")) for w in workouts)
        return f"**Workouts**: {names}" + (f" ({_duration(0, fields['duration'] * 1000)})" if "duration" in fields else "")
    if kind == "location":
        place = fields.get("place") or "A place"
        city = fields.get("city")
        return f"**At** {_escape(place)}" + (f", {_escape(city)}" if city and city != place else "")
    if kind == "locationGroup":
        places = [loc.get("place") or loc.get("city") for loc in fields.get("locations", [])]
        return "**Places**: " + ", ".join(_escape(p) for p in places if p)
    if kind == "song":
        line = f"**Song**: {_escape(fields.get('song', ''))}"
        if fields.get("artist"):
            line += f" by {_escape(fields['artist'])}"
        return line
    if kind == "podcast":
        return f"**Podcast**: {_escape(fields.get('episode', ''))}" + (f" ({_escape(fields['show'])})" if fields.get("show") else "")
    if kind == "genericMedia":
        line = f"**{_escape(fields.get('title', 'Media'))}**"
        return line + (f" by {_escape(fields['artist'])}" if fields.get("artist") else "")
    if kind == "contact":
        return f"**With** {_escape(fields.get('name', 'someone'))}"
    if kind == "reflection":
        return f"**Reflection**: //{_escape(fields.get('prompt', ''))}//"
    if kind == "stateOfMind":
        return _mood_line(fields)
    if kind == "motionActivity":
        return f"**Steps**: {fields.get('steps', 0)}"
    if kind in ("photo", "livePhoto"):
        return "**Photo**"
    if kind == "video":
        return "**Video**"
    return f"**{_escape(kind)}**"


def _picture_markup(relative_path):
    """RedNotebook's picture markup for a file relative to the data folder: [""name"".ext]."""
    base, extension = os.path.splitext(relative_path)
    return f'[""{base}""{extension}]'


def _link_markup(name, relative_path):
    return f'[{_escape(name)} ""{relative_path}""]'


def write_out(suggestion, data_dir, now=None):
    """The day text for an approved suggestion, with its pictures copied into the journal.

    Every file is first written into a hidden folder beside the final one, which is renamed into
    place only when all were copied: a copy that fails half-way leaves nothing behind.

    Returns (text, folder) where folder is the pictures' folder (None when there were none).
    Raises SuggestionFailed naming the step that failed.
    """
    now = now or datetime.datetime.now()
    stamp = now.strftime("%Y-%m-%d-%H%M%S")
    # Two suggestions inserted within one second (a reminder's right after another) get a folder each.
    relative = os.path.join(MEDIA_FOLDER, stamp)
    number = 2
    while os.path.lexists(os.path.join(data_dir, relative)):
        relative = os.path.join(MEDIA_FOLDER, f"{stamp}-{number}")
        number += 1
    final = os.path.join(data_dir, relative)
    parent = os.path.join(data_dir, MEDIA_FOLDER)
    try:
        os.makedirs(parent, mode=0o700, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".incoming-", dir=parent)
    except OSError as error:
        raise SuggestionFailed(f"cannot make a folder for the pictures in {parent}: {error.strerror}") from error

    lines = [f"=== {_escape(suggestion.get_title() or 'A journaling suggestion')} ===", ""]
    copied = 0
    try:
        for item in suggestion.get_items():
            line = "- " + item_line(item)
            extras = []
            # A photo's photo, a Live Photo's still, a contact's photo, a song's artwork: the
            # picture RedNotebook can show. A video is linked as a file (pickerd sends no still).
            image = item.get_image()
            media = [image] if image is not None else []
            if item.get_kind_name() == "video":
                media = [m for m in item.get_media() if m.get_role() == "video"]
            for medium in media:
                try:
                    saved = medium.save(staging)
                except GLib.Error as error:
                    raise SuggestionFailed(f"copying a {medium.get_role()} failed: {error.message}") from error
                name = os.path.basename(saved)
                copied += 1
                extension = os.path.splitext(name)[1].lstrip(".").lower()
                if extension in PICTURE_EXTENSIONS and item.get_kind_name() in ("photo", "livePhoto", "contact"):
                    extras.append(_picture_markup(os.path.join(relative, name)))
                elif item.get_kind_name() == "video":
                    extras.append(_link_markup(name, os.path.join(relative, name)))
            if extras:
                line += " " + " ".join(extras)
            lines.append(line)
        if copied:
            os.rename(staging, final)
        else:
            os.rmdir(staging)
    except SuggestionFailed:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise SuggestionFailed(f"writing the pictures into {parent} failed: {error.strerror}") from error
    except Exception:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # Two blank lines close a list in RedNotebook's markup (its own Insert ▸ Bullet List ends so).
    return "\n".join(lines) + "\n\n\n", (final if copied else None)


# --- the action -----------------------------------------------------------------------------------

# GTK 3 exports a Wayland window (xdg-foreign) only through gdk_wayland_window_export_handle(), which
# introspection does not offer (GTK 3 ships no GdkWayland typelib): it is called through ctypes.
_WAYLAND_EXPORTED = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_pending_exports = set()  # the callbacks GDK holds, alive until it calls them


def _gdk3_function(name, argtypes, restype):
    try:
        function = getattr(ctypes.CDLL("libgdk-3.so.0"), name)
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = argtypes, restype
    return function


def export_parent(window, done):
    """Names the window as xdg-desktop-portal names a parent, then calls done(handle or None):
    "x11:<hex XID>" on X11, "wayland:<handle>" (an exported xdg-foreign handle) on Wayland."""
    gdk_window = window.get_window()
    if gdk_window is None:
        done(None)
        return
    if GdkX11 is not None and isinstance(gdk_window, GdkX11.X11Window):
        done("x11:%x" % gdk_window.get_xid())
        return
    if gdk_window.__gtype__.name == "GdkWaylandWindow":
        export = _gdk3_function("gdk_wayland_window_export_handle",
                                [ctypes.c_void_p, _WAYLAND_EXPORTED, ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int)

        def exported(_window, handle, _data):
            _pending_exports.discard(callback)
            done("wayland:" + handle.decode())

        callback = _WAYLAND_EXPORTED(exported)
        _pending_exports.add(callback)
        # PyGObject hashes a GObject by its address, which is the GdkWindow * GDK's C API takes.
        if export is not None and export(hash(gdk_window), callback, None, None):
            return
        _pending_exports.discard(callback)
    done(None)


def unexport_parent(window):
    """Withdraws a Wayland handle export_parent made (nothing on X11)."""
    gdk_window = window.get_window()
    if gdk_window is not None and gdk_window.__gtype__.name == "GdkWaylandWindow":
        unexport = _gdk3_function("gdk_wayland_window_unexport_handle", [ctypes.c_void_p], None)
        if unexport is not None:
            unexport(hash(gdk_window))


class JournalingSuggestions:
    """Adds "Insert a journaling suggestion" to a running RedNotebook (its Journal, after startup)."""

    def __init__(self, journal, runtime_dir=None):
        self.journal = journal
        self.picker = JS.Picker(button_title=BUTTON_TITLE, runtime_dir=runtime_dir) if JS else None
        self.presenting = False
        self.button = None

    @property
    def main_window(self):
        return self.journal.frame

    def install(self):
        """The action in the Insert menus (toolbar popup and menu bar) and as a toolbar button."""
        window = self.main_window
        group = Gtk.ActionGroup(name="JournalingSuggestionsActionGroup")
        group.add_actions([(ACTION_NAME, "insert-image", ACTION_LABEL, "<Control><Shift>J", ACTION_TOOLTIP,
                            lambda _action: self.present())])
        window.uimanager.insert_action_group(group, 0)
        window.uimanager.add_ui_from_string(
            f"""<ui>
<popup action="InsertMenu"><separator/><menuitem action="{ACTION_NAME}"/></popup>
<menubar name="MainMenuBar"><menu action="InsertMenuBar"><separator/><menuitem action="{ACTION_NAME}"/></menu></menubar>
</ui>""")
        self.button = Gtk.ToolButton(label=ACTION_LABEL, icon_name="insert-image")
        self.button.set_tooltip_text(ACTION_TOOLTIP)
        self.button.set_is_important(True)
        self.button.connect("clicked", lambda _button: self.present())
        window.builder.get_object("edit_toolbar").insert(self.button, -1)
        self.button.show()
        if JS is None:
            group.set_sensitive(False)
            self.button.set_sensitive(False)
            self.button.set_tooltip_text(f"Journaling suggestions are not installed ({UNAVAILABLE})")

    def tell(self, message):
        """A line in RedNotebook's status bar (and its log)."""
        self.journal.show_message(message, error=False)

    def present(self, suggestion_id=None):
        """Presents the picker over the main window; the outcome lands in on_presented."""
        if self.picker is None:
            self.tell(f"Journaling suggestions are not installed: {UNAVAILABLE}")
            return
        if self.presenting:
            return
        self.presenting = True
        if self.button is not None:
            self.button.set_sensitive(False)
        # The day the suggestion goes into is the one on screen when the person asked.
        self.target_date = self.journal.date

        def present_over(parent):
            logging.info(f"Journaling suggestions: presenting the picker over {parent or 'no parent window'}")
            self.picker.present(parent, suggestion_id or None, None, self.on_presented)

        export_parent(self.main_window.main_frame, present_over)

    def present_url(self, url):
        """A reminder's URL: today's page, then the picker opened on the suggestion it names."""
        suggestion_id = None
        if JS is not None:
            ok, suggestion_id = JS.notification_url_parse(url, NOTIFICATION_URL_FORMAT)
            if not ok:
                self.tell(f"Not a journaling suggestion reminder: {url}")
                return
        self.journal.change_date(datetime.date.today())
        self.present(suggestion_id)

    def on_presented(self, picker, result):
        self.presenting = False
        unexport_parent(self.main_window.main_frame)
        if self.button is not None:
            self.button.set_sensitive(True)
        try:
            outcome = picker.present_finish(result)
        except GLib.Error as error:
            if error.matches(JS.error_quark(), JS.Error.UNREACHABLE):
                self.tell("Journaling suggestions are not available: pickerd is not running. Nothing was inserted.")
            else:
                self.tell(f"Journaling suggestions: {error.message}. Nothing was inserted.")
            return
        kind = outcome.get_kind()
        if kind == JS.OutcomeKind.CANCELLED:
            self.tell("No suggestion was chosen. Nothing was inserted.")
            return
        if kind != JS.OutcomeKind.APPROVED:
            self.tell("The suggestions picker closed. Nothing was inserted.")
            return
        suggestion = outcome.get_suggestion()
        if not suggestion.get_items():
            self.tell("Nothing in the suggestion was kept. Nothing was inserted.")
            return
        self.insert(suggestion)

    def insert(self, suggestion):
        """Writes the approved suggestion into the day it was asked for, then saves the journal."""
        try:
            text, folder = write_out(suggestion, self.journal.dirs.data_dir)
        except SuggestionFailed as error:
            self.tell(f"The suggestion could not be inserted: {error}. The day is unchanged.")
            return
        # The person may have moved to another day while choosing: go back to the one they asked from.
        if self.journal.date != self.target_date:
            self.journal.change_date(self.target_date)
        editor = self.main_window.day_text_field
        buffer = editor.day_text_buffer
        # At the cursor, as RedNotebook's own Insert items do, on a line of its own; one undo step.
        cursor = buffer.get_iter_at_mark(buffer.get_insert())
        if not cursor.starts_line():
            text = "\n" + text
        buffer.begin_user_action()
        editor.insert(text)
        buffer.end_user_action()
        # Saved at once: the pictures are already in the journal, and the text that names them
        # belongs on disk with them.
        self.journal.save_to_disk()
        count = len(suggestion.get_items())
        where = f", pictures in {os.path.relpath(folder, self.journal.dirs.data_dir)}" if folder else ""
        self.tell(f"Inserted \u201c{suggestion.get_title()}\u201d: {count} item{'s' if count != 1 else ''}{where}.")
