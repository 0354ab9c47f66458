/* keys.c - groups whose keys are hard to write as a Prometheus label: every byte value 0x01-0xFF
   (in keys of 16 consecutive bytes), backslash, quote, newline, '%', "%other", well-formed and
   broken UTF-8. Runs one task per key, renders the metrics to stdout (every group listed), and
   writes each key, hex-encoded, one per line, to the file named by argv[1].
   tests/prometheus/check.py feeds the text to `promtool check metrics` and maps every group label
   back to bytes, which must give exactly these keys. */
#define GROUPCONC_IMPLEMENTATION
#include "groupconc.h"
#define GROUPCONC_PROMETHEUS_IMPLEMENTATION
#include "extras/groupconc_prometheus.h"

#include <stdio.h>
#include <string.h>

static int job(groupconc_context *ctx, void **out_value, void *arg) {
    (void)ctx, (void)out_value, (void)arg;
    return 0;
}

int main(int argc, char **argv) {
    static const char *fixed[] = {"tenant-a", "back\\slash", "quo\"te", "new\nline", "50%", "%25",
                                  "%other", "caf\xc3\xa9", "\xe2\x82\xac euro", "\xf0\x9f\x98\x80",
                                  "\xc3", "\xe2\x82", "\xed\xa0\x80 surrogate", "\xc0\xaf overlong",
                                  "\xf4\x90\x80\x80 too high", "tab\there", "\x7f del"};
    char keys[16 + sizeof fixed / sizeof fixed[0]][32];
    size_t n = 0, i;
    groupconc_policy policy = groupconc_policy_default();
    groupconc_prometheus_config cfg = groupconc_prometheus_config_default();
    groupconc_executor *ex;
    FILE *hex;
    int rc;
    if (argc != 2 || !(hex = fopen(argv[1], "w"))) return 2;
    for (i = 0; i < 16; i++, n++) { /* bytes 16*i .. 16*i+15, NUL left out */
        size_t b, k = 0;
        for (b = 16 * i; b < 16 * i + 16; b++)
            if (b) keys[n][k++] = (char)b;
        keys[n][k] = '\0';
    }
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++, n++) snprintf(keys[n], sizeof keys[n], "%s", fixed[i]);
    policy.default_concurrency = 2;
    if (groupconc_executor_create(&policy, &ex) != GROUPCONC_OK) return 1;
    for (i = 0; i < n; i++) {
        const unsigned char *p;
        if (groupconc_submit(ex, keys[i], NULL, job, NULL, NULL) != GROUPCONC_OK) return 1;
        for (p = (const unsigned char *)keys[i]; *p; p++) fprintf(hex, "%02x", *p);
        fputc('\n', hex);
    }
    fclose(hex);
    if (groupconc_executor_shutdown_graceful(ex, GROUPCONC_FOREVER) != GROUPCONC_OK) return 1;
    cfg.max_groups = GROUPCONC_PROMETHEUS_ALL_GROUPS;
    rc = groupconc_prometheus_render_file(ex, &cfg, stdout);
    groupconc_executor_destroy(ex);
    return rc == GROUPCONC_OK ? 0 : 1;
}
