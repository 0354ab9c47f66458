/* dump_keys.c - the dump is strict JSON for any key bytes (issue 23): argv[1] a seed, argv[2] how
   many random keys. Makes state for a fixed list of edge cases of UTF-8 (overlong forms,
   surrogates, above U+10FFFF, cut sequences, a real U+FFFD, a key that reads as another's hex) and
   for random byte strings (1..16 bytes, any byte but NUL; half of them built from encoded code
   points, some of those corrupted), each paused (group_pause) with one task waiting in it whose id
   is random bytes too. Prints two lines: the dump, then a JSON list of [key in hex, task id in hex];
   tests/dump/check_dump_keys.py parses the dump from bytes decoded as strict UTF-8 and checks that
   every key and id maps back to its exact bytes and that no two keys print alike. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 600

static unsigned long long rng;
static unsigned rnd(unsigned n) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

static int noop_fn(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx;
    (void)out_value;
    (void)arg;
    return 0;
}

/* one code point (or a surrogate, or above U+10FFFF) in UTF-8's pattern, 1..4 bytes */
static size_t encode(unsigned cp, char *out) {
    if (cp < 0x80) return out[0] = (char)(cp ? cp : 'x'), 1;
    if (cp < 0x800) return out[0] = (char)(0xC0 | (cp >> 6)), out[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | ((cp >> 18) & 7));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static void random_bytes(char *s, size_t max) {
    size_t n = 0, len = 1 + rnd((unsigned)max);
    if (rnd(2)) {
        while (n < len) s[n++] = (char)(1 + rnd(255));
    } else {
        static const unsigned tops[] = {0x80, 0x800, 0xD800, 0xE000, 0x10000, 0x110000, 0x140000};
        while (n + 4 <= max && n < len) {
            char b[4];
            size_t k = encode(rnd(tops[rnd(7)]), b);
            if (rnd(6) == 0) b[rnd((unsigned)k)] = (char)(1 + rnd(255)); /* corrupt one byte */
            if (rnd(8) == 0 && k > 1) k--;                                /* cut it short */
            memcpy(s + n, b, k);
            n += k;
        }
        if (n == 0) s[n++] = 'k';
    }
    s[n] = '\0';
}

static void put_hex(const char *s) {
    printf("\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) printf("%02x", *p);
    printf("\"");
}

int main(int argc, char **argv) {
    static const char *const fixed[] = {
        "a", "\xc3\xa9", "\xc3", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\xa0\x80", "\xed\xa0\x80",
        "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbd", "\xef\xbf\xbd\xef\xbf\xbd", "\xff", "ff", "\xff\xfe",
        "fffe", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80",
        "\xf5\x80\x80\x80", "\x80", "\xbf", "a\xe2\x82", "\xe2\x82\xac", "\xe2\x82\xac\xe2", "\x7f", "\x1f",
        "\"\\", "\xc2\x80", "\xdf\xbf", "\xf8\x88\x80\x80\x80", "\xe2\x80\xa8", "key_hex", "null"};
    static char keys[MAX_KEYS][20], ids[MAX_KEYS][20];
    static groupconc_task *tasks[MAX_KEYS];
    size_t nfixed = sizeof fixed / sizeof fixed[0], n = 0, want;
    groupconc_policy p = groupconc_policy_default();
    groupconc_executor *ex;
    if (argc != 3) return 2;
    rng = strtoull(argv[1], NULL, 10);
    want = nfixed + strtoul(argv[2], NULL, 10);
    if (want > MAX_KEYS) return 2;
    p.max_threads = 1;
    if (groupconc_executor_create(&p, &ex) != GROUPCONC_OK) return 1;
    while (n < want) {
        size_t j;
        if (n < nfixed) snprintf(keys[n], sizeof keys[n], "%s", fixed[n]);
        else random_bytes(keys[n], 16);
        for (j = 0; j < n && strcmp(keys[j], keys[n]) != 0; j++) {}
        if (j < n) continue; /* the same key twice: draw again */
        random_bytes(ids[n], 12);
        if (groupconc_group_pause(ex, keys[n]) != GROUPCONC_OK ||
            groupconc_submit(ex, keys[n], ids[n], noop_fn, NULL, &tasks[n]) != GROUPCONC_OK)
            return 1;
        n++;
    }
    if (groupconc_executor_dump_file(ex, stdout) != GROUPCONC_OK) return 1;
    printf("[");
    for (size_t i = 0; i < n; i++) {
        printf(i ? ",[" : "[");
        put_hex(keys[i]);
        printf(",");
        put_hex(ids[i]);
        printf("]");
    }
    printf("]\n");
    if (groupconc_executor_shutdown(ex) != GROUPCONC_OK) return 1;
    for (size_t i = 0; i < n; i++) {
        groupconc_result r;
        if (groupconc_task_wait(tasks[i], &r) != GROUPCONC_OK || r.status != GROUPCONC_STATUS_CANCELLED) return 1;
        groupconc_task_release(tasks[i]);
    }
    return groupconc_executor_destroy(ex) == GROUPCONC_OK ? 0 : 1;
}
