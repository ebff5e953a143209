import CTerminal
import Foundation
import Glibc
import PickerKit
import PickerdTransport
import PickerdWire
import Synchronization
import SystemPackage

extension PickerScreen {
    // MARK: Drawing

    private var rows: Int32 { term_rows() }
    private var columns: Int32 { term_cols() }

    func draw() {
        term_erase()
        term_cursor(0, 0, 0)
        switch screen {
        case .waiting: text(rows / 2, 2, "One moment…", color: 6)
        case .approval: drawApproval()
        case .consent: drawConsent()
        case .customize: drawCustomize()
        case .about: drawPage("About Journaling Suggestions", PickerWords.aboutText, help: "any key: back")
        case .learnMore: drawPage("Your privacy", PickerWords.privacyText(app: review.appDisplayName), help: "any key: back")
        case .list: drawList()
        case .review, .editTitle, .namePlace: drawReview()
        case .fewer: drawFewer()
        }
        term_refresh()
        if trace.isOn {
            drawnCount += 1
            trace.note("drawn", "\(drawnCount) \(screen)")
        }
    }

    private func text(_ row: Int32, _ column: Int32, _ string: String, bold: Bool = false, reverse: Bool = false, color: Int32 = 0) {
        var attributes: Int32 = color << 8
        if bold { attributes |= Int32(TERM_BOLD) }
        if reverse { attributes |= Int32(TERM_REVERSE) }
        term_text(row, column, string, attributes)
    }

    private func help(_ line: String) {
        text(rows - 1, 0, String(repeating: " ", count: Int(columns)), reverse: true)
        text(rows - 1, 1, line, reverse: true)
    }

    private func header(_ string: String) {
        text(0, 1, string, bold: true, color: 7)
        text(1, 0, String(repeating: "─", count: Int(columns)), color: 6)
    }

    /// The question about an app not yet allowed. The question is drawn whole, and the buttons are
    /// never pushed off the screen: what explains it is left out, paragraph by paragraph, when the
    /// terminal is short.
    private func drawApproval() {
        let app = review.appDisplayName
        header("Allow \(app)?")
        let width = Int(columns) - 4
        let lastButtonRow = rows - 2
        var row: Int32 = 3
        let origin = review.appOrigin.isEmpty ? "" : " — \(review.appOrigin) —"
        for line in PickerWords.wrapBreakingWords("\(app)\(origin) wants to show you journaling suggestions.", width) where row < lastButtonRow - 1 {
            text(row, 2, line, bold: true)
            row += 1
        }
        var explanation = [PickerWords.approvalText(app: app, kind: review.appKind),
                           "If you allow it, \(app) may open this picker from now on, until you revoke it (pickerctl apps revoke). It still receives only what you choose to add."]
        if !review.appBundleId.isEmpty { explanation.append("App id: \(review.appBundleId)") }
        for (index, paragraph) in explanation.enumerated() {
            let lines = PickerWords.wrapBreakingWords(paragraph, width)
            // A blank line, the paragraph, a blank line, the buttons.
            guard row + Int32(lines.count) + 2 <= lastButtonRow else { break }
            row += 1
            for line in lines {
                text(row, 2, line, color: index == 0 ? 0 : 6)
                row += 1
            }
        }
        row = min(row + 1, lastButtonRow)
        var column: Int32 = 2
        for (index, label) in ["Allow", "Don't Allow"].enumerated() {
            let button = "[ \(label) ]"
            text(row, column, button, bold: index == approvalButton, reverse: index == approvalButton, color: index == approvalButton ? 3 : 1)
            column += Int32(button.count) + 2
        }
        help("←/→ choose  Enter select  a allow  d don't allow")
    }

    private func drawConsent() {
        header("Journaling Suggestions")
        var row: Int32 = 3
        for line in PickerWords.wrap("\(review.appDisplayName) would like to show you suggestions for your journal, made on this device from your photos, workouts, places, music, contacts and moods.", Int(columns) - 4) {
            text(row, 2, line)
            row += 1
        }
        row += 1
        for line in PickerWords.wrap("Suggestions stay on this device. An app receives only what you choose to add, and only when you add it.", Int(columns) - 4) {
            text(row, 2, line, color: 6)
            row += 1
        }
        row += 1
        var column: Int32 = 2
        for (index, label) in ["Turn On", "Customize", "About", "Not Now"].enumerated() {
            let button = "[ \(label) ]"
            text(row, column, button, bold: index == 0, reverse: index == consentButton, color: index == consentButton ? 3 : 1)
            column += Int32(button.count) + 2
        }
        help("←/→ choose  Enter select  t turn on  c customize  a about  n not now")
    }

    private func drawCustomize() {
        header("Customize Journaling Suggestions")
        text(3, 2, "Choose what suggestions may be made from:")
        for (index, setting) in categories.enumerated() {
            let mark = setting.enabled ? "[x]" : "[ ]"
            text(5 + Int32(index), 4, "\(mark) \(PickerWords.categoryLabel(setting.category))", reverse: index == categoryIndex,
                 color: index == categoryIndex ? 3 : setting.enabled ? 4 : 0)
        }
        help("↑/↓ move  Space turn on/off  Enter turn on with these  Esc back")
    }

    private func drawPage(_ heading: String, _ body: String, help line: String) {
        header(heading)
        var row: Int32 = 3
        for paragraph in body.split(separator: "\n", omittingEmptySubsequences: false) {
            for wrapped in PickerWords.wrap(String(paragraph), Int(columns) - 4) where row < rows - 2 {
                text(row, 2, wrapped)
                row += 1
            }
        }
        help(line)
    }

    private func drawList() {
        header("Journaling Suggestions · \(review.appDisplayName)")
        var row: Int32 = 2
        if session.showsBanner {
            let banner = " \(review.appDisplayName) gets only what you choose to add.  ? learn more  x dismiss "
            text(row, 0, String(repeating: " ", count: Int(columns)), color: 2)
            text(row, 1, banner, bold: true, color: 2)
            row += 1
        }
        let tabs = [("Recommended", totals[0]), ("Recent", totals[1])]
        var column: Int32 = 1
        for (index, (name, count)) in tabs.enumerated() {
            let label = " \(name) (\(count)) "
            text(row, column, label, bold: index == tab, reverse: index == tab, color: index == tab ? 3 : 1)
            column += Int32(label.count) + 1
        }
        row += 2
        let entries = list
        guard !entries.isEmpty else {
            // Nothing at all: why, and what to do (the same words in every picker).
            for line in PickerWords.wrapBreakingWords(session.emptyListsReason ?? "No suggestions yet.", Int(columns) - 4) where row < rows - 2 {
                text(row, 2, line, color: 6)
                row += 1
            }
            help("Tab switch list  Esc cancel")
            return
        }
        let perEntry: Int32 = 2
        let visible = max(1, Int((rows - 1 - row) / perEntry))
        let first = max(0, min(selection[tab] - visible / 2, entries.count - visible))
        for index in first..<min(entries.count, first + visible) {
            let entry = entries[index]
            let selected = index == selection[tab]
            let marker = selected ? "›" : " "
            text(row, 1, "\(marker) \(entry.title)", bold: selected, reverse: selected, color: selected ? 3 : 0)
            text(row + 1, 3, "\(PickerWords.range(of: entry))   \(PickerWords.contents(entry.items))", color: 6)
            row += perEntry
        }
        if !notice.isEmpty { text(rows - 2, 1, notice, color: 5) }
        help("↑/↓ choose  Enter review  Tab Recommended/Recent  ? privacy  \(session.showsBanner ? "x dismiss banner  " : "")\(session.lastHidden != nil ? "u undo  " : "")Esc cancel")
    }

    private func drawReview() {
        let items = suggestion.items
        guard items.indices.contains(itemIndex) else { return }
        let keptCount = kept.filter { $0 }.count
        let unavailableCount = items.filter { unavailable[$0.id] != nil }.count
        fetchNextMedia()
        header("Review · \(review.appDisplayName)")
        if screen == .editTitle || screen == .namePlace {
            let label = screen == .editTitle ? "Title: " : "\(PickerWords.namePlace) (\(naming?.label ?? "")): "
            text(2, 1, label, bold: true)
            text(2, Int32(label.count) + 1, editBuffer + " ", reverse: true)
            term_cursor(1, 2, Int32(label.count + editBuffer.count) + 1)
        } else {
            text(2, 1, title, bold: true)
        }
        if screen == .namePlace {
            text(3, 1, PickerWords.namePlaceExplanation, color: 6)
        } else {
            text(3, 1, "\(PickerWords.range(of: suggestion))   keeping \(keptCount) of \(items.count)"
                 + (unavailableCount > 0 ? "   \(unavailableCount) cannot be added" : ""), color: 6)
        }
        // The terminal's landscape: side by side when wide, stacked otherwise.
        let wide = columns >= 120 && rows >= 30
        let top: Int32 = 5
        let bottom = rows - 3
        let carouselWidth: Int32 = wide ? columns * 3 / 5 : columns
        let carouselHeight: Int32 = wide ? bottom - top : max(6, (bottom - top) / 2)
        drawCarousel(row: top, column: 0, width: carouselWidth, height: carouselHeight)
        let listTop = wide ? top : top + carouselHeight + 1
        let listColumn: Int32 = wide ? carouselWidth + 1 : 0
        let listHeight = bottom - listTop
        text(listTop - (wide ? 0 : 1), listColumn + 1, wide ? "All items" : "── All items " + String(repeating: "─", count: max(0, Int(columns) - 14)), color: 6)
        let start = wide ? listTop + 1 : listTop
        let visible = max(1, Int(listHeight - (wide ? 1 : 0)))
        let first = max(0, min(itemIndex - visible / 2, items.count - visible))
        for index in first..<min(items.count, first + visible) {
            let item = items[index]
            let selected = index == itemIndex
            let mark = kept[index] ? "[x]" : "[ ]"
            var line = "\(mark) \(PickerWords.glyph(item)) \(item.asset?.summary ?? "")"
            if let reason = unavailable[item.id] {
                // Why, when it fits; the carousel says it in full.
                let why = "  ✗ left out: \(reason)"
                line += line.count + why.count <= Int(columns - listColumn - 2) ? why : "  ✗ left out"
            }
            text(start + Int32(index - first), listColumn + 1, line, reverse: selected, color: selected ? 3 : kept[index] ? 4 : 5)
        }
        let button = "[ \(session.addTitle) ]"
        text(rows - 2, 1, button, bold: true, color: keptCount > 0 ? 1 : 6)
        if !message.isEmpty { text(rows - 2, Int32(button.count) + 3, message, color: 5) }
        if screen == .editTitle {
            help("type the title  Ctrl-U clear  Enter keep it  Esc leave it as it was")
        } else if screen == .namePlace {
            help("type what you call it  Ctrl-U clear  Enter name it  Esc leave it")
        } else {
            let prompt = { if case .reflection? = items[itemIndex].asset { return "p another prompt  " } else { return "" } }()
            let name = session.nameablePlaces.isEmpty ? "" : "n name place  "
            help("←/→ item  Space keep  e title  \(prompt)\(name)h hide this  f fewer like this  Enter add  b back  Esc cancel")
        }
    }

    /// "Show fewer like this": the suggestion's people, places and days, and what hiding does.
    private func drawFewer() {
        header("\(PickerWords.showFewer) · \(title)")
        var row: Int32 = 3
        text(row, 2, PickerWords.fewerExplanation, bold: true)
        row += 2
        for (index, option) in fewerOptions.enumerated() where row < rows - 4 {
            let selected = index == fewerIndex
            text(row, 2, "\(selected ? "›" : " ") \(option.label)", bold: selected, reverse: selected, color: selected ? 3 : 0)
            row += 1
        }
        row += 1
        for line in PickerWords.wrap(PickerWords.hideExplanation, Int(columns) - 4) where row < rows - 2 {
            text(row, 2, line, color: 6)
            row += 1
        }
        if !message.isEmpty { text(rows - 2, 2, message, color: 5) }
        help("↑/↓ choose  Enter hide  Esc back")
    }

    private func drawCarousel(row: Int32, column: Int32, width: Int32, height: Int32) {
        let item = suggestion.items[itemIndex]
        let hasImage = PickerWords.imageMedia(item) != nil
        let pictureWidth: Int32 = hasImage ? min(width / 2, height * 2 + 4) : 0
        let reason = unavailable[item.id]
        if hasImage {
            if let image = previews[item.id] ?? nil, term_colors() > 0 {
                for (r, line) in image.cells(columns: Int(pictureWidth), rows: Int(height)).enumerated() {
                    for (c, cell) in line.enumerated() {
                        if let cell { term_pixels(row + Int32(r), column + 1 + Int32(c), cell.top, cell.bottom) }
                    }
                }
            } else {
                let placeholder = previews[item.id] == nil ? "loading…" : reason != nil ? "unavailable" : "no preview"
                text(row + height / 2, column + 1 + max(0, (pictureWidth - Int32(placeholder.count)) / 2), placeholder, color: reason != nil ? 5 : 6)
            }
        }
        let left = column + pictureWidth + 2
        text(row, left, "\(itemIndex + 1) of \(suggestion.items.count)  \(PickerWords.glyph(item)) \(PickerWords.kindLabel(item))", bold: true, color: 1)
        var line = row + 2
        for detail in PickerWords.details(item, utcOffsetSeconds: suggestion.localUtcOffsetS) {
            for wrapped in PickerWords.wrap(detail, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped)
                line += 1
            }
        }
        if line < row + height {
            let status = kept[itemIndex] ? "✓ will be added" : reason.map { "✗ left out: \($0), so it cannot be added" } ?? "✗ left out"
            line = line + 1 < row + height ? line + 1 : line
            for wrapped in PickerWords.wrap(status, Int(width - left - 1)) where line < row + height {
                text(line, left, wrapped, color: kept[itemIndex] ? 4 : 5)
                line += 1
            }
        }
    }
}
