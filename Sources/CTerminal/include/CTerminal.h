/* CTerminal: the terminal picker's drawing surface, over ncurses (wide-character build), on a
 * terminal given as a file descriptor (the app's terminal, passed to the trusted picker agent by
 * pickerd), plus zlib's inflate for decoding photo previews.
 *
 * Why C: ncurses' API is macros and varargs Swift cannot call, and restoring a terminal from a
 * signal handler must use only async-signal-safe calls. One terminal per process. */
#ifndef CTERMINAL_H
#define CTERMINAL_H

#include <stddef.h>

/* Keys term_key returns besides Unicode scalars (printable text) and these controls. */
enum {
    TERM_KEY_NONE = -1,       /* the timeout passed */
    TERM_KEY_UP = 0x110001,   /* above Unicode's range */
    TERM_KEY_DOWN,
    TERM_KEY_LEFT,
    TERM_KEY_RIGHT,
    TERM_KEY_ENTER,
    TERM_KEY_BACKSPACE,
    TERM_KEY_BACKTAB,
    TERM_KEY_PAGE_UP,
    TERM_KEY_PAGE_DOWN,
    TERM_KEY_HOME,
    TERM_KEY_END,
    TERM_KEY_CLOSED,          /* the terminal went away (hang-up) */
};

/* Text attributes for term_text; the UI color (1…7, see below) goes in bits 8…15. */
enum {
    TERM_BOLD = 1,
    TERM_REVERSE = 2,
    TERM_DIM = 4,
    TERM_UNDERLINE = 8,
};
/* UI colors: 1 accent, 2 banner, 3 selection, 4 kept, 5 left out, 6 muted, 7 heading. */

/* Takes the terminal on fd: saves its modes, enters the alternate screen in raw mode, and installs
 * handlers that put the terminal back on SIGINT, SIGTERM, SIGHUP, SIGQUIT (then exit 128+signal).
 * term_type is a terminfo name ($TERM); when unknown, xterm-256color, then vt100 are tried.
 * Returns 0, or -1 when the descriptor is not a terminal or ncurses refuses it. */
int term_open(int fd, const char *term_type);
/* Gives the terminal back exactly as it was. Safe to call more than once. */
void term_close(void);

int term_rows(void);
int term_cols(void);
/* Asks the kernel for the terminal's size (the agent is not in the terminal's foreground group,
 * so no SIGWINCH reaches it); returns 1 when it changed (ncurses was resized), else 0. */
int term_poll_size(void);
/* The number of colors: 0 (none), 8, 16, 256. */
int term_colors(void);

void term_erase(void);
/* UTF-8 text at (row, col), clipped to the screen. */
void term_text(int row, int col, const char *utf8, int attributes);
/* A cell showing two pixels: the upper half block in `top`, the cell's background in `bottom`
 * (0xRRGGBB each), approximated with the terminal's palette. */
void term_pixels(int row, int col, unsigned top, unsigned bottom);
void term_cursor(int visible, int row, int col);
void term_refresh(void);
/* The next key within timeout_ms (negative: wait), as a Unicode scalar or a TERM_KEY_* value. */
int term_key(int timeout_ms);

/* zlib: inflates a zlib stream into dst; returns the bytes written, or -1. */
long term_inflate(const unsigned char *src, size_t length, unsigned char *dst, size_t capacity);

#endif
