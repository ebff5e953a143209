/* See include/CTerminal.h. Built with _XOPEN_SOURCE_EXTENDED for ncursesw's wide-character API. */
#include "CTerminal.h"

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <zlib.h>

static int tty = -1;
static struct termios saved;
static SCREEN *screen;
static FILE *in_file, *out_file;
static int colors;
static short pair_of[256][256];   /* (fg, bg) palette pair → ncurses pair, 0 when not yet made */
static int next_pair = 16;
static int last_rows, last_cols;

/* Async-signal-safe: back to the saved modes and the main screen, cursor shown, then exit. */
static void restore_and_exit(int signal_number) {
    static const char reset[] = "\033[0m\033[?1049l\033[?25h\r\n";
    if (tty >= 0) {
        tcsetattr(tty, TCSANOW, &saved);
        ssize_t ignored = write(tty, reset, sizeof reset - 1);
        (void)ignored;
    }
    _exit(128 + signal_number);
}

int term_open(int fd, const char *term_type) {
    if (!isatty(fd) || tcgetattr(fd, &saved) != 0) return -1;
    tty = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_exit;
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
    if (!setlocale(LC_ALL, "C.UTF-8")) setlocale(LC_ALL, "");
    out_file = fdopen(dup(fd), "w");
    in_file = fdopen(dup(fd), "r");
    if (!out_file || !in_file) return -1;
    const char *candidates[] = {term_type && *term_type ? term_type : "xterm-256color", "xterm-256color", "vt100"};
    for (size_t i = 0; i < 3 && !screen; i++) screen = newterm(candidates[i], out_file, in_file);
    if (!screen) return -1;
    set_term(screen);
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
        colors = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : COLORS >= 8 ? 8 : 0;
        init_pair(1, COLOR_CYAN, -1);
        init_pair(2, COLOR_BLACK, COLOR_YELLOW);
        init_pair(3, COLOR_BLACK, COLOR_CYAN);
        init_pair(4, COLOR_GREEN, -1);
        init_pair(5, COLOR_RED, -1);
        init_pair(6, colors >= 16 ? 8 : COLOR_WHITE, -1);
        init_pair(7, COLOR_MAGENTA, -1);
    }
    last_rows = LINES;
    last_cols = COLS;
    return 0;
}

void term_close(void) {
    if (!screen) return;
    endwin();
    delscreen(screen);
    screen = NULL;
    fclose(in_file);
    fclose(out_file);
    tcsetattr(tty, TCSANOW, &saved);
    tty = -1;
}

int term_rows(void) { return LINES; }
int term_cols(void) { return COLS; }
int term_colors(void) { return colors; }

int term_poll_size(void) {
    struct winsize size;
    if (tty < 0 || ioctl(tty, TIOCGWINSZ, &size) != 0 || size.ws_row == 0) return 0;
    if (size.ws_row == last_rows && size.ws_col == last_cols) return 0;
    last_rows = size.ws_row;
    last_cols = size.ws_col;
    resizeterm(size.ws_row, size.ws_col);
    return 1;
}

void term_erase(void) { erase(); }

void term_text(int row, int col, const char *utf8, int attributes) {
    if (row < 0 || row >= LINES || col >= COLS) return;
    attr_t a = A_NORMAL;
    if (attributes & TERM_BOLD) a |= A_BOLD;
    if (attributes & TERM_REVERSE) a |= A_REVERSE;
    if (attributes & TERM_DIM) a |= A_DIM;
    if (attributes & TERM_UNDERLINE) a |= A_UNDERLINE;
    short pair = colors ? (short)((attributes >> 8) & 0xff) : 0;
    attr_set(a, pair, NULL);
    /* Clip to the screen's width, counting columns, not bytes. */
    wchar_t wide[1024];
    size_t n = mbstowcs(wide, utf8, 1023);
    if (n == (size_t)-1) return;
    wide[n] = 0;
    int width = 0;
    size_t keep = 0;
    for (; keep < n; keep++) {
        int w = wcwidth(wide[keep]);
        if (w < 0) w = 1;
        if (col + width + w > COLS) break;
        width += w;
    }
    mvaddnwstr(row, col < 0 ? 0 : col, wide, (int)keep);
    attr_set(A_NORMAL, 0, NULL);
}

static int palette_index(unsigned rgb) {
    int r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    if (colors >= 256) {
        /* xterm's 6×6×6 cube, or its 24-step gray ramp when closer. */
        int cr = (r * 5 + 127) / 255, cg = (g * 5 + 127) / 255, cb = (b * 5 + 127) / 255;
        int levels[6] = {0, 95, 135, 175, 215, 255};
        int dr = r - levels[cr], dg = g - levels[cg], db = b - levels[cb];
        int gray = (r + g + b) / 3, step = gray < 8 ? 0 : gray > 238 ? 23 : (gray - 8) / 10;
        int gv = 8 + step * 10, dgray = (r - gv) * (r - gv) + (g - gv) * (g - gv) + (b - gv) * (b - gv);
        if (dgray < dr * dr + dg * dg + db * db) return 232 + step;
        return 16 + 36 * cr + 6 * cg + cb;
    }
    int bright = (r + g + b) > 3 * 170 && colors >= 16 ? 8 : 0;
    return ((r > 96) ? 1 : 0) | ((g > 96) ? 2 : 0) | ((b > 96) ? 4 : 0) | bright;
}

void term_pixels(int row, int col, unsigned top, unsigned bottom) {
    if (!colors || row < 0 || row >= LINES || col < 0 || col >= COLS) return;
    int fg = palette_index(top), bg = palette_index(bottom);
    short pair = pair_of[fg][bg];
    if (!pair) {
        if (next_pair >= COLOR_PAIRS || next_pair > 32767) return;
        pair = (short)next_pair++;
        init_pair(pair, (short)fg, (short)bg);
        pair_of[fg][bg] = pair;
    }
    attr_set(A_NORMAL, pair, NULL);
    mvaddwstr(row, col, L"\u2580");
    attr_set(A_NORMAL, 0, NULL);
}

void term_cursor(int visible, int row, int col) {
    curs_set(visible ? 1 : 0);
    if (visible) move(row, col);
}

void term_refresh(void) { refresh(); }

int term_key(int timeout_ms) {
    timeout(timeout_ms);
    wint_t key;
    int kind = get_wch(&key);
    if (kind == ERR) {
        /* A timeout, or a hang-up (the terminal went away): no more keys will come then. */
        struct pollfd probe = {.fd = tty, .events = POLLIN, .revents = 0};
        if (tty < 0 || (poll(&probe, 1, 0) > 0 && (probe.revents & (POLLHUP | POLLERR | POLLNVAL)))) return TERM_KEY_CLOSED;
        return TERM_KEY_NONE;
    }
    if (kind == KEY_CODE_YES) {
        switch (key) {
        case KEY_UP: return TERM_KEY_UP;
        case KEY_DOWN: return TERM_KEY_DOWN;
        case KEY_LEFT: return TERM_KEY_LEFT;
        case KEY_RIGHT: return TERM_KEY_RIGHT;
        case KEY_ENTER: return TERM_KEY_ENTER;
        case KEY_BACKSPACE: return TERM_KEY_BACKSPACE;
        case KEY_BTAB: return TERM_KEY_BACKTAB;
        case KEY_PPAGE: return TERM_KEY_PAGE_UP;
        case KEY_NPAGE: return TERM_KEY_PAGE_DOWN;
        case KEY_HOME: return TERM_KEY_HOME;
        case KEY_END: return TERM_KEY_END;
        default: return TERM_KEY_NONE;
        }
    }
    if (key == '\r' || key == '\n') return TERM_KEY_ENTER;
    if (key == 127 || key == 8) return TERM_KEY_BACKSPACE;
    return (int)key;
}

long term_inflate(const unsigned char *src, size_t length, unsigned char *dst, size_t capacity) {
    uLongf written = (uLongf)capacity;
    int status = uncompress(dst, &written, src, (uLong)length);
    return status == Z_OK ? (long)written : -1;
}
