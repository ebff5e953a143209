package import PickerdStore

/// A generated item with the bytes of its files.
package struct GeneratedItem {
    /// A file the item uses: where it goes in the store and its bytes.
    package struct File {
        package var media: StoredMedia
        package var bytes: [UInt8]

        package init(media: StoredMedia, bytes: [UInt8]) {
            self.media = media
            self.bytes = bytes
        }
    }
    package var item: LibraryItem
    package var files: [File]

    package init(item: LibraryItem, files: [File]) {
        self.item = item
        self.files = files
    }
}
