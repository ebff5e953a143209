import GRDB

extension Store {
    // MARK: Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: library, suggestions, settings, consent, history") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    category INTEGER NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    excluded INTEGER NOT NULL DEFAULT 0,
                    source TEXT NOT NULL,
                    external_id TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX item_by_start ON item(start_ms);
                CREATE TABLE media (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    slot INTEGER NOT NULL,
                    relative_path TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    filename TEXT NOT NULL,
                    byte_count INTEGER NOT NULL,
                    pixel_width INTEGER NOT NULL,
                    pixel_height INTEGER NOT NULL,
                    PRIMARY KEY (item_id, slot)
                );
                CREATE TABLE photo (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    photo_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE live_photo (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    image_slot INTEGER, video_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE video (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    video_slot INTEGER, date_ms INTEGER
                );
                -- A standalone workout has one row (position 0); a workout group one per workout.
                CREATE TABLE workout (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    has_details INTEGER NOT NULL,
                    activity_type INTEGER NOT NULL,
                    energy_value REAL, energy_unit TEXT,
                    distance_value REAL, distance_unit TEXT,
                    heart_rate_value REAL, heart_rate_unit TEXT,
                    start_ms INTEGER, end_ms INTEGER,
                    localized_name TEXT NOT NULL,
                    icon_slot INTEGER,
                    PRIMARY KEY (item_id, position)
                );
                CREATE TABLE route_point (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL,
                    altitude_m REAL, horizontal_accuracy_m REAL, timestamp_ms INTEGER,
                    PRIMARY KEY (item_id, position, seq)
                );
                CREATE TABLE workout_group (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    icon_slot INTEGER, duration_s REAL,
                    energy_value REAL, energy_unit TEXT,
                    heart_rate_value REAL, heart_rate_unit TEXT
                );
                CREATE TABLE contact (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    name TEXT NOT NULL, photo_slot INTEGER
                );
                -- A standalone location has one row (position 0); a location group one per place.
                CREATE TABLE location (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    place TEXT NOT NULL, city TEXT NOT NULL,
                    latitude REAL, longitude REAL, altitude_m REAL, horizontal_accuracy_m REAL, timestamp_ms INTEGER,
                    date_ms INTEGER,
                    is_work_location INTEGER,
                    PRIMARY KEY (item_id, position)
                );
                CREATE TABLE location_group (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE
                );
                CREATE TABLE song (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    song TEXT NOT NULL, artist TEXT NOT NULL, album TEXT NOT NULL, artwork_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE podcast (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    episode TEXT NOT NULL, show TEXT NOT NULL, artwork_slot INTEGER, date_ms INTEGER
                );
                CREATE TABLE motion_activity (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    icon_slot INTEGER, steps INTEGER NOT NULL, start_ms INTEGER, end_ms INTEGER,
                    movement_type INTEGER NOT NULL
                );
                CREATE TABLE generic_media (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    title TEXT NOT NULL, artist TEXT NOT NULL, album TEXT NOT NULL, date_ms INTEGER, app_icon_slot INTEGER
                );
                CREATE TABLE reflection (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    prompt TEXT NOT NULL, color TEXT
                );
                CREATE TABLE state_of_mind (
                    item_id TEXT PRIMARY KEY NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    has_state INTEGER NOT NULL,
                    kind INTEGER NOT NULL, valence REAL NOT NULL, valence_classification INTEGER NOT NULL,
                    labels TEXT NOT NULL, associations TEXT NOT NULL, date_ms INTEGER,
                    icon_slot INTEGER, light_background TEXT, dark_background TEXT
                );
                CREATE TABLE suggestion (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    score REAL NOT NULL
                );
                CREATE TABLE suggestion_item (
                    suggestion_id TEXT NOT NULL REFERENCES suggestion(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 12),
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    PRIMARY KEY (suggestion_id, position)
                );
                CREATE TABLE category_setting (
                    category INTEGER PRIMARY KEY NOT NULL,
                    enabled INTEGER NOT NULL
                );
                CREATE TABLE consent (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    given_ms INTEGER,
                    privacy_banner_dismissed INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE release (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time_ms INTEGER NOT NULL,
                    bundle_id TEXT NOT NULL,
                    app_name TEXT NOT NULL,
                    suggestion_id TEXT NOT NULL,
                    title TEXT NOT NULL
                );
                CREATE TABLE release_item (
                    release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    item_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    PRIMARY KEY (release_id, position)
                );
                """)
        }
        migrator.registerMigration("v2: notification settings and records") { db in
            try db.execute(sql: """
                CREATE TABLE notification_settings (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    enabled INTEGER NOT NULL,
                    mode INTEGER NOT NULL,
                    slots TEXT NOT NULL,
                    open_with TEXT NOT NULL
                );
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY NOT NULL,
                    suggestion_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    fired_ms INTEGER NOT NULL,
                    opened INTEGER NOT NULL DEFAULT 0,
                    url TEXT NOT NULL DEFAULT ''
                );
                """)
        }
        migrator.registerMigration("v3: reminder scheduler watermark") { db in
            // How far the scheduler has looked: every reminder due up to here was recorded (in the same
            // transaction that moved the mark), so a restart neither repeats nor loses one.
            try db.execute(sql: """
                CREATE TABLE reminder_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    checked_until_ms INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v4: moments engine: item time zones, places, not-memories; indexed suggestions with rotation") { db in
            // Suggestions are rebuilt by the moments engine (deterministic ids), so the old ones go.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN utc_offset_s INTEGER;
                ALTER TABLE item ADD COLUMN latitude REAL;
                ALTER TABLE item ADD COLUMN longitude REAL;
                ALTER TABLE item ADD COLUMN not_memory TEXT;
                DELETE FROM suggestion;
                ALTER TABLE suggestion ADD COLUMN category_mask INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN shown INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN rank REAL NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN month_day INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE suggestion ADD COLUMN anchor_ms INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX suggestion_recent ON suggestion(end_ms DESC, id DESC);
                CREATE INDEX suggestion_by_kind_rank ON suggestion(kind, rank DESC);
                CREATE INDEX suggestion_by_kind_end ON suggestion(kind, end_ms DESC);
                CREATE INDEX suggestion_by_month_day ON suggestion(month_day);
                CREATE INDEX suggestion_by_anchor ON suggestion(anchor_ms);
                CREATE INDEX suggestion_item_by_item ON suggestion_item(item_id);
                CREATE TABLE engine_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    built INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v5: counts and the library's version kept by triggers") { db in
            // `pickerctl status` and the stats read a few rows, not the library: the counts are kept
            // up to date by the database itself, whoever writes (pickerd, or a tool on the file).
            try db.execute(sql: """
                CREATE TABLE item_count (kind TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
                INSERT INTO item_count (kind, n) SELECT kind, COUNT(*) FROM item GROUP BY kind;
                CREATE TRIGGER item_counted AFTER INSERT ON item BEGIN
                    INSERT INTO item_count (kind, n) VALUES (NEW.kind, 1) ON CONFLICT(kind) DO UPDATE SET n = n + 1;
                END;
                CREATE TRIGGER item_uncounted AFTER DELETE ON item BEGIN
                    UPDATE item_count SET n = n - 1 WHERE kind = OLD.kind;
                END;
                CREATE TABLE suggestion_count (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
                INSERT INTO suggestion_count (id, n) VALUES (1, (SELECT COUNT(*) FROM suggestion));
                CREATE TRIGGER suggestion_counted AFTER INSERT ON suggestion BEGIN
                    UPDATE suggestion_count SET n = n + 1 WHERE id = 1;
                END;
                CREATE TRIGGER suggestion_uncounted AFTER DELETE ON suggestion BEGIN
                    UPDATE suggestion_count SET n = n - 1 WHERE id = 1;
                END;
                -- Every change to an item moves this on: items read before are still good while it stays.
                CREATE TABLE library_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
                INSERT INTO library_version (id, n) VALUES (1, 0);
                CREATE TRIGGER item_inserted AFTER INSERT ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                CREATE TRIGGER item_updated AFTER UPDATE ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                CREATE TRIGGER item_deleted AFTER DELETE ON item BEGIN UPDATE library_version SET n = n + 1 WHERE id = 1; END;
                """)
        }
        migrator.registerMigration("v6: sources: a person's folders, indexed in place") { db in
            // A source is a folder pickerd indexes where it is; each file it holds has a row keyed by
            // its path, with what a rescan compares (size, mtime) and what tells a move (device,
            // inode). A file's item is kept in `item` as any other; its media row names the file by
            // its absolute path (a relative path is below the store's own media directory) and the
            // mtime the release checks again. Deleting an item leaves its file's row, unlinked: the
            // next scan indexes it again.
            try db.execute(sql: """
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    added_ms INTEGER NOT NULL,
                    last_scan_ms INTEGER,
                    last_scan_seconds REAL
                );
                CREATE TABLE source_file (
                    path TEXT PRIMARY KEY NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    directory TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    item_id TEXT REFERENCES item(id) ON DELETE SET NULL,
                    role TEXT NOT NULL DEFAULT '',
                    content_id TEXT,
                    problem TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX source_file_by_source ON source_file(source_id, directory);
                CREATE INDEX source_file_by_item ON source_file(item_id);
                CREATE INDEX source_file_by_content ON source_file(content_id) WHERE content_id IS NOT NULL;
                ALTER TABLE media ADD COLUMN mtime_ns INTEGER;
                CREATE INDEX media_by_path ON media(relative_path);
                """)
        }
        migrator.registerMigration("v7: what the person allowed and revoked of apps") { db in
            // The person's word on each app: allowed (in the trusted picker) or revoked (pickerctl apps
            // revoke), with the registration it was given for (a developer build's executable and
            // entitlements, a Flatpak's app id): a registration changed since is asked about again.
            try db.execute(sql: """
                CREATE TABLE app_state (
                    bundle_id TEXT PRIMARY KEY NOT NULL,
                    allowed_key TEXT,
                    allowed_ms INTEGER,
                    revoked_ms INTEGER,
                    last_presented_ms INTEGER
                );
                """)
        }
        migrator.registerMigration("v8: donations: an app's items by its own ids; a generic media item's artwork") { db in
            // Donated items are found by app and the app's identifier (a second donation replaces the
            // first, a withdrawal names them); the donated cover of a generic media item has a slot.
            try db.execute(sql: """
                CREATE INDEX item_by_source ON item(source, external_id);
                ALTER TABLE generic_media ADD COLUMN artwork_slot INTEGER;
                """)
        }
        migrator.registerMigration("v9: people: the person's contacts, calendar events, who photos name") { db in
            // Contacts (vCard) and calendar events (.ics) are not library items: a Contact item is
            // made from them only where the data says the person spent time with someone (an event's
            // attendee, a photo that names them), and linked to what made it (`person_link`): when the
            // last photo or event behind a Contact item goes, the item goes (trigger). Events are
            // stored one row per occurrence, read by time through `calendar_event_by_start`.
            try db.execute(sql: """
                CREATE TABLE person_contact (
                    key TEXT PRIMARY KEY NOT NULL,
                    uid TEXT,
                    name TEXT NOT NULL,
                    other_names TEXT NOT NULL DEFAULT '',
                    emails TEXT NOT NULL DEFAULT '',
                    photo_path TEXT,
                    photo_type TEXT,
                    photo_bytes INTEGER,
                    photo_width INTEGER,
                    photo_height INTEGER,
                    updated_ms INTEGER NOT NULL
                );
                CREATE TABLE calendar_event (
                    id TEXT PRIMARY KEY NOT NULL,
                    uid TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    all_day INTEGER NOT NULL,
                    time_zone TEXT NOT NULL DEFAULT '',
                    location TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX calendar_event_by_start ON calendar_event(start_ms);
                CREATE INDEX calendar_event_by_uid ON calendar_event(uid);
                CREATE TABLE calendar_attendee (
                    event_id TEXT NOT NULL REFERENCES calendar_event(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    PRIMARY KEY (event_id, position)
                );
                CREATE TABLE item_person (
                    item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    PRIMARY KEY (item_id, name)
                );
                CREATE TABLE person_link (
                    contact_item_id TEXT NOT NULL REFERENCES item(id) ON DELETE CASCADE,
                    photo_item_id TEXT REFERENCES item(id) ON DELETE CASCADE,
                    event_id TEXT REFERENCES calendar_event(id) ON DELETE CASCADE
                );
                CREATE INDEX person_link_by_contact ON person_link(contact_item_id);
                CREATE INDEX person_link_by_photo ON person_link(photo_item_id);
                CREATE INDEX person_link_by_event ON person_link(event_id);
                CREATE TRIGGER person_link_gone AFTER DELETE ON person_link
                WHEN NOT EXISTS (SELECT 1 FROM person_link WHERE contact_item_id = OLD.contact_item_id)
                BEGIN DELETE FROM item WHERE id = OLD.contact_item_id; END;
                """)
        }
        migrator.registerMigration("v10: a person's file's change time, which a release checks") { db in
            // A release opens the person's file and compares the descriptor's device, inode, size,
            // mtime and ctime with the index: a file swapped for another (even one given the same
            // size and mtime) is not released. Rows from before have no ctime; a rescan fills it.
            try db.execute(sql: "ALTER TABLE source_file ADD COLUMN ctime_ns INTEGER")
        }
        migrator.registerMigration("v11: what the person hid from suggestions") { db in
            // The person's own rules, kept with the settings (never sent to an app). A kind this
            // version cannot read is left in place and reported, never dropped.
            try db.execute(sql: """
                CREATE TABLE hidden_rule (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    suggestion_id TEXT,
                    name TEXT,
                    latitude REAL,
                    longitude REAL,
                    from_day INTEGER,
                    to_day INTEGER,
                    created_ms INTEGER NOT NULL
                )
                """)
        }
        migrator.registerMigration("v12: the person's word on where home and work are") { db in
            // `pickerctl places set-home|set-work`: a place (and from which local day on, for a move)
            // that wins over what pickerd finds in the visits. Never sent to an app. A row this
            // version cannot read is left in place and reported, never dropped.
            try db.execute(sql: """
                CREATE TABLE place_correction (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    role TEXT NOT NULL,
                    latitude REAL,
                    longitude REAL,
                    name TEXT NOT NULL DEFAULT '',
                    from_day INTEGER,
                    created_ms INTEGER NOT NULL
                )
                """)
        }
        migrator.registerMigration("v13: a source's files by size, to find a photo's copies") { db in
            // One photo however many files hold it (issue 41): a new file is compared byte for byte
            // only with indexed files of its size, found on this index.
            try db.execute(sql: "CREATE INDEX source_file_by_size ON source_file(size)")
        }
        migrator.registerMigration("v14: the folders a source's scans do not look into") { db in
            // Hidden folders (`.thumbnails`, an app's `.photoprism`) and links to folders, named in
            // `pickerctl sources list` with why (issue 41), rather than left out silently. Each
            // scan of a folder replaces what it said of the folders below it.
            try db.execute(sql: """
                CREATE TABLE source_skipped_folder (
                    path TEXT PRIMARY KEY NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    reason TEXT NOT NULL
                )
                """)
        }
        migrator.registerMigration("v15: the person's names for places") { _ in
            // `pickerctl places name` (issue 42) keeps the person's name for a place as a row of
            // `place_correction` with the role `name`, beside their home and work: no new table.
            // The version still moves, so a pickerd of v14, which would report such a row as a
            // correction it cannot read, refuses this store in one line instead of half reading it.
        }
        migrator.registerMigration("v16: the place a photo's own metadata names") { db in
            // A photo's IPTC/XMP location (issue 42): the person's data on where it was taken, which
            // names a stay from photos above the gazetteer. Location, like latitude and longitude:
            // kept beside them on the item row and never sent to an app.
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN place_name TEXT;
                ALTER TABLE item ADD COLUMN place_city TEXT;
                """)
        }
        migrator.registerMigration("v17: which generation of readers read a file") { db in
            // ``SourceFile/readBy``: every file recorded so far was read by generation 1, and is
            // read again by the next scan of a pickerd whose readers take more (a photo's place, its
            // Takeout sidecar, a WebP that was "not read yet"); its item keeps its id.
            try db.execute(sql: "ALTER TABLE source_file ADD COLUMN read_by INTEGER NOT NULL DEFAULT 1")
        }
        return migrator
    }
}
