"""Unit tests of the add-on's writing-out (journaling_suggestions.write_out and item_line), on
stand-ins for the library's objects: what each kind of item becomes in RedNotebook's markup, and a
copy that fails half-way leaving nothing behind. Run by Tools/test:

    /usr/bin/python3 -m unittest discover -s Clients/rednotebook -p 'test_*.py'
"""
import datetime
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import journaling_suggestions as js  # noqa: E402
from gi.repository import GLib  # noqa: E402


class Fields:
    def __init__(self, fields):
        self.fields = fields

    def unpack(self):
        return self.fields


class Media:
    def __init__(self, role, name, fail=False):
        self.role, self.name, self.fail = role, name, fail

    def get_role(self):
        return self.role

    def save(self, directory):
        if self.fail:
            raise GLib.Error("the descriptor could not be read")
        path = os.path.join(directory, self.name)
        with open(path, "wb") as file:
            file.write(b"\x89PNG")
        return path


class Item:
    def __init__(self, kind, fields, image=None, media=()):
        self.kind, self.fields, self.image, self.media = kind, fields, image, list(media)

    def get_kind_name(self):
        return self.kind

    def get_fields(self):
        return Fields(self.fields)

    def get_image(self):
        return self.image

    def get_media(self):
        return self.media + ([self.image] if self.image else [])


class Suggestion:
    def __init__(self, title, items):
        self.title, self.items = title, items

    def get_title(self):
        return self.title

    def get_items(self):
        return self.items


class ItemLines(unittest.TestCase):
    def test_each_kind_in_rednotebooks_style(self):
        cases = [
            (Item("workout", {"localized-name": "Outdoor Run", "distance": (7600.0, "m"), "date-start": 0, "date-end": 42 * 60000}),
             "**Outdoor Run**: 7.6 km in 42 min"),
            (Item("location", {"place": "Riverside Park", "city": "New York"}), "**At** Riverside Park, New York"),
            (Item("song", {"song": "Clair de lune", "artist": "Debussy"}), "**Song**: Clair de lune by Debussy"),
            (Item("contact", {"name": "Ana"}), "**With** Ana"),
            (Item("reflection", {"prompt": "What made today good?"}), "**Reflection**: //What made today good?//"),
            (Item("stateOfMind", {"kind": "dailyMood", "valence-classification": 6, "labels": [17, 7]}),
             "**Mood of the day**: pleasant (happy, calm)"),
        ]
        for item, line in cases:
            self.assertEqual(js.item_line(item), line)

    def test_a_title_cannot_make_markup(self):
        item = Item("location", {"place": "**Bold** [link ""http://x""]"})
        line = js.item_line(item)
        self.assertNotIn("**Bold**", line)
        self.assertNotIn("[", line.replace("**At**", ""))


class WriteOut(unittest.TestCase):
    def setUp(self):
        self.data = tempfile.mkdtemp()

    def test_pictures_copied_and_named_relative_to_the_journal(self):
        suggestion = Suggestion("A walk", [Item("photo", {}, image=Media("photo", "IMG_1.jpg")),
                                           Item("location", {"place": "Park"})])
        text, folder = js.write_out(suggestion, self.data)
        self.assertTrue(text.startswith("=== A walk ===\n\n- **Photo** [\"\"journaling-suggestions/"))
        self.assertIn("- **At** Park\n", text)
        self.assertTrue(os.path.isfile(os.path.join(folder, "IMG_1.jpg")))

    def test_two_within_one_second_get_a_folder_each(self):
        now = datetime.datetime(2026, 11, 29, 0, 35, 30)
        first, first_folder = js.write_out(Suggestion("A run", [Item("photo", {}, image=Media("photo", "IMG_1.jpg"))]), self.data, now)
        second, second_folder = js.write_out(Suggestion("From a reminder", [Item("photo", {}, image=Media("photo", "IMG_1.jpg"))]),
                                             self.data, now)
        self.assertNotEqual(first_folder, second_folder)
        self.assertTrue(second_folder.endswith("2026-11-29-003530-2"))
        self.assertIn('[""journaling-suggestions/2026-11-29-003530-2/IMG_1"".jpg]', second)
        for folder in (first_folder, second_folder):
            self.assertTrue(os.path.isfile(os.path.join(folder, "IMG_1.jpg")))

    def test_a_copy_failing_half_way_leaves_nothing(self):
        suggestion = Suggestion("Two photos", [Item("photo", {}, image=Media("photo", "IMG_1.jpg")),
                                               Item("photo", {}, image=Media("photo", "IMG_2.jpg", fail=True))])
        with self.assertRaises(js.SuggestionFailed) as raised:
            js.write_out(suggestion, self.data)
        self.assertIn("copying a photo failed", str(raised.exception))
        self.assertEqual(os.listdir(os.path.join(self.data, js.MEDIA_FOLDER)), [])


if __name__ == "__main__":
    unittest.main()
