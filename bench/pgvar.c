/*
 * pgvar: one client connection that loads prepared rows into the worker's PostgreSQL schema the way a variant of the
 * worker's write path would, and reports the rate and its backend's CPU. Built and run by bench/pg-variants.sh.
 *
 *   pgvar CONNINFO ROWS UPSERT_SQL COUNT_SQL|- MODE VPLUS [PIDFILE GOFILE]
 *
 * ROWS: one row a line, ten fields separated by 0x1F, as the worker binds them (patient, metric, day, version,
 * resource_id, head, tail, status, after_status, clinical_value). UPSERT_SQL and COUNT_SQL are files holding the
 * statement texts (COUNT_SQL `-`: no counter statement). VPLUS is added to every version (a replace pass). MODE:
 *   array     per 1000 rows: BEGIN; the upsert with ten binary array parameters; the counters; COMMIT (the worker)
 *   pipeline  the same statements in libpq pipeline mode: BEGIN + upsert in one flight, counters + COMMIT in the next
 *   copy      BEGIN; COPY dvp_in FROM STDIN (FORMAT binary); ANALYZE dvp_in; the merge (UPSERT_SQL reading dvp_in,
 *             planned per batch); counters; COMMIT
 *   explain   EXPLAIN (ANALYZE, BUFFERS) of the first batch's upsert, printed, then rolled back
 * With PIDFILE and GOFILE it writes its backend's pid to PIDFILE and waits for GOFILE before loading (for perf).
 * Prints "rows seconds backend_cpu_seconds" (user+system time of its backend from /proc/PID/stat).
 */
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { FIELDS = 10, BATCH = 1000 };

typedef struct { char *data; size_t len, cap; } buf;

static void need(buf *b, size_t n) {
    if (b->len + n <= b->cap) return;
    while (b->len + n > b->cap) b->cap = b->cap ? b->cap * 2 : 1 << 16;
    b->data = realloc(b->data, b->cap);
    if (!b->data) { perror("realloc"); exit(1); }
}
static void put(buf *b, const void *p, size_t n) { need(b, n); memcpy(b->data + b->len, p, n); b->len += n; }
static void put16(buf *b, uint16_t v) { v = htons(v); put(b, &v, 2); }
static void put32(buf *b, uint32_t v) { v = htonl(v); put(b, &v, 4); }
static void put64(buf *b, int64_t v) { put32(b, (uint32_t)((uint64_t)v >> 32)); put32(b, (uint32_t)v); }

typedef struct { const char *p[FIELDS]; int len[FIELDS]; } row;

static void die(PGconn *c, const char *what) {
    fprintf(stderr, "pgvar: %s: %s", what, PQerrorMessage(c));
    exit(1);
}
static PGresult *ok(PGconn *c, PGresult *r, const char *what) {
    ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_COPY_IN && s != PGRES_PIPELINE_SYNC) {
        fprintf(stderr, "pgvar: %s: %s", what, PQresultErrorMessage(r));
        exit(1);
    }
    (void)c;
    return r;
}
static void exec(PGconn *c, const char *sql) { PQclear(ok(c, PQexec(c, sql), sql)); }

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    s[n] = 0;
    if (len) *len = (size_t)n;
    return s;
}

static double backend_cpu(int pid) {
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) { perror(path); exit(1); }
    fclose(f);
    char *s = strrchr(line, ')') + 2;  /* field 3 onwards */
    unsigned long long utime = 0, stime = 0;
    for (int field = 3; field <= 15; field++) {
        if (field == 14) utime = strtoull(s, NULL, 10);
        if (field == 15) stime = strtoull(s, NULL, 10);
        s = strchr(s, ' ') + 1;
    }
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A one-dimensional binary array of rows[from..<to] field f: text (OID 25) or, for the version, int8 (OID 20). */
static void array(buf *b, row *rows, int from, int to, int f, int64_t vplus) {
    b->len = 0;
    put32(b, 1);
    put32(b, 0);
    put32(b, f == 3 ? 20 : 25);
    put32(b, (uint32_t)(to - from));
    put32(b, 1);
    for (int i = from; i < to; i++) {
        if (f == 3) { put32(b, 8); put64(b, strtoll(rows[i].p[3], NULL, 10) + vplus); }
        else { put32(b, (uint32_t)rows[i].len[f]); put(b, rows[i].p[f], (size_t)rows[i].len[f]); }
    }
}

/* The binary COPY stream of rows[from..<to] (the dvp_in columns, in the field order). */
static void copy_data(buf *b, row *rows, int from, int to, int64_t vplus) {
    b->len = 0;
    put(b, "PGCOPY\n\377\r\n\0", 11);
    put32(b, 0);
    put32(b, 0);
    for (int i = from; i < to; i++) {
        put16(b, FIELDS);
        for (int f = 0; f < FIELDS; f++) {
            if (f == 3) { put32(b, 8); put64(b, strtoll(rows[i].p[3], NULL, 10) + vplus); }
            else { put32(b, (uint32_t)rows[i].len[f]); put(b, rows[i].p[f], (size_t)rows[i].len[f]); }
        }
    }
    put16(b, 0xFFFF);
}

/* The counter statement's parameters from the upsert's RETURNING (or, without it, every written row as `outcome`). */
typedef struct { char metric[64]; long inserted, updated; } tally;

static int count_params(PGresult *r, row *rows, int from, int to, const char *outcome, buf *m, buf *o, buf *n) {
    tally t[64];
    int k = 0;
    int rn = PQntuples(r) > 0 && PQnfields(r) == 4 ? PQntuples(r) : 0;
    int total = rn ? rn : to - from;
    for (int i = 0; i < total; i++) {
        const char *metric = rn ? PQgetvalue(r, i, 1) : rows[from + i].p[1];
        int mlen = rn ? PQgetlength(r, i, 1) : rows[from + i].len[1];
        int inserted = rn ? PQgetvalue(r, i, 3)[0] == 't' : strcmp(outcome, "inserted") == 0;
        int j = 0;
        while (j < k && !(strlen(t[j].metric) == (size_t)mlen && memcmp(t[j].metric, metric, (size_t)mlen) == 0)) j++;
        if (j == k) {
            if (k == 64) { fprintf(stderr, "pgvar: more than 64 metrics\n"); exit(1); }
            memcpy(t[k].metric, metric, (size_t)mlen);
            t[k].metric[mlen] = 0;
            t[k].inserted = t[k].updated = 0;
            k++;
        }
        if (inserted) t[j].inserted++; else t[j].updated++;
    }
    int entries = 0;
    for (int j = 0; j < k; j++) entries += (t[j].inserted > 0) + (t[j].updated > 0);
    m->len = o->len = n->len = 0;
    put32(m, 1); put32(m, 0); put32(m, 25); put32(m, (uint32_t)entries); put32(m, 1);
    put32(o, 1); put32(o, 0); put32(o, 25); put32(o, (uint32_t)entries); put32(o, 1);
    put32(n, 1); put32(n, 0); put32(n, 20); put32(n, (uint32_t)entries); put32(n, 1);
    for (int j = 0; j < k; j++) {
        for (int w = 0; w < 2; w++) {
            long c = w ? t[j].updated : t[j].inserted;
            if (!c) continue;
            const char *name = w ? "updated" : "inserted";
            put32(m, (uint32_t)strlen(t[j].metric)); put(m, t[j].metric, strlen(t[j].metric));
            put32(o, (uint32_t)strlen(name)); put(o, name, strlen(name));
            put32(n, 8); put64(n, c);
        }
    }
    return entries;
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 9) {
        fprintf(stderr, "usage: pgvar CONNINFO ROWS UPSERT_SQL COUNT_SQL|- MODE VPLUS [PIDFILE GOFILE]\n");
        return 2;
    }
    const char *mode = argv[5];
    int64_t vplus = strtoll(argv[6], NULL, 10);
    int copy = strcmp(mode, "copy") == 0, pipeline = strcmp(mode, "pipeline") == 0;
    int explain = strcmp(mode, "explain") == 0;
    if (!copy && !pipeline && !explain && strcmp(mode, "array") != 0) {
        fprintf(stderr, "pgvar: bad mode\n");
        return 2;
    }

    size_t size;
    char *text = slurp(argv[2], &size);
    int cap = 1024, n = 0;
    row *rows = malloc(sizeof(row) * (size_t)cap);
    for (char *s = text; s < text + size;) {
        char *end = memchr(s, '\n', (size_t)(text + size - s));
        if (!end) end = text + size;
        if (n == cap) rows = realloc(rows, sizeof(row) * (size_t)(cap *= 2));
        char *p = s;
        for (int f = 0; f < FIELDS; f++) {
            char *sep = f < FIELDS - 1 ? memchr(p, 0x1F, (size_t)(end - p)) : end;
            if (!sep) { fprintf(stderr, "pgvar: row %d has fewer than %d fields\n", n + 1, FIELDS); return 1; }
            *sep = 0;
            rows[n].p[f] = p;
            rows[n].len[f] = (int)(sep - p);
            p = sep + 1;
        }
        n++;
        s = end + 1;
    }
    char *upsert = slurp(argv[3], NULL);
    char *count = strcmp(argv[4], "-") ? slurp(argv[4], NULL) : NULL;

    PGconn *c = PQconnectdb(argv[1]);
    if (PQstatus(c) != CONNECTION_OK) die(c, "connect");
    int pid = PQbackendPID(c);
    if (copy)
        exec(c, "CREATE TEMP TABLE dvp_in (patient text, metric text, day text, version bigint, resource_id text, "
                "head text, tail text, status text, after_status text, clinical_value text) ON COMMIT DELETE ROWS");
    if (!copy) PQclear(ok(c, PQprepare(c, "dvp_upsert", upsert, 0, NULL), "prepare upsert"));
    if (count) PQclear(ok(c, PQprepare(c, "dvp_count", count, 0, NULL), "prepare count"));
    if (argc == 9) {
        FILE *f = fopen(argv[7], "w");
        fprintf(f, "%d\n", pid);
        fclose(f);
        while (access(argv[8], F_OK) != 0) usleep(10000);
    }

    buf arrays[FIELDS] = {{0}}, m = {0}, o = {0}, cn = {0}, cp = {0};
    const char *values[FIELDS];
    int lengths[FIELDS], formats[FIELDS];
    const char *outcome = vplus > 0 ? "updated" : "inserted";
    double cpu0 = backend_cpu(pid), t0 = now();
    if (pipeline && !PQenterPipelineMode(c)) die(c, "pipeline mode");
    for (int from = 0; from < n; from += BATCH) {
        int to = from + BATCH < n ? from + BATCH : n;
        int nparams = 0;
        if (copy) {
            copy_data(&cp, rows, from, to, vplus);
        } else {
            for (int f = 0; f < FIELDS; f++) {
                array(&arrays[f], rows, from, to, f, vplus);
                values[f] = arrays[f].data;
                lengths[f] = (int)arrays[f].len;
                formats[f] = 1;
            }
            nparams = FIELDS;
        }
        if (explain) {
            exec(c, "BEGIN");
            char *sql = malloc(strlen(upsert) + 64);
            sprintf(sql, "EXPLAIN (ANALYZE, BUFFERS) %s", upsert);
            PGresult *r = ok(c, PQexecParams(c, sql, nparams, NULL, values, lengths, formats, 0), "explain");
            for (int i = 0; i < PQntuples(r); i++) printf("%s\n", PQgetvalue(r, i, 0));
            PQclear(r);
            exec(c, "ROLLBACK");
            PQfinish(c);
            return 0;
        }
        PGresult *r;
        if (pipeline) {
            if (!PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0)) die(c, "send BEGIN");
            if (!PQsendQueryPrepared(c, "dvp_upsert", nparams, values, lengths, formats, 0)) die(c, "send upsert");
            if (!PQsendFlushRequest(c) || PQflush(c) < 0) die(c, "flush");
            PQclear(ok(c, PQgetResult(c), "BEGIN"));
            PQclear(PQgetResult(c));
            r = ok(c, PQgetResult(c), "upsert");
            PGresult *end = PQgetResult(c);
            if (end) { fprintf(stderr, "pgvar: unexpected result\n"); return 1; }
        } else {
            exec(c, "BEGIN");
            if (copy) {
                PQclear(ok(c, PQexec(c, "COPY dvp_in FROM STDIN (FORMAT binary)"), "COPY"));
                if (PQputCopyData(c, cp.data, (int)cp.len) != 1 || PQputCopyEnd(c, NULL) != 1) die(c, "copy data");
                PQclear(ok(c, PQgetResult(c), "COPY end"));
                /* Without statistics the planner takes the temp table for ~5000 rows and hash-joins the whole
                 * observation table (plus JIT) for every batch; with them it probes the primary key like today. */
                exec(c, "ANALYZE dvp_in");
            }
            /* The merge has no parameters, so a prepared one keeps the plan made for the first (empty) tables;
             * unprepared, it is planned for each batch against the current sizes, as psql's raw script is. */
            r = copy ? ok(c, PQexecParams(c, upsert, 0, NULL, NULL, NULL, NULL, 0), "merge")
                     : ok(c, PQexecPrepared(c, "dvp_upsert", nparams, values, lengths, formats, 0), "upsert");
        }
        if (PQntuples(r) != to - from && PQnfields(r) == 4) {
            fprintf(stderr, "pgvar: the upsert wrote %d of %d rows\n", PQntuples(r), to - from);
            return 1;
        }
        int entries = count ? count_params(r, rows, from, to, outcome, &m, &o, &cn) : 0;
        PQclear(r);
        const char *cv[4] = {m.data, o.data, cn.data, "0"};
        int cl[4] = {(int)m.len, (int)o.len, (int)cn.len, 0}, cf[4] = {1, 1, 1, 0};
        if (pipeline) {
            if (entries && !PQsendQueryPrepared(c, "dvp_count", 4, cv, cl, cf, 0)) die(c, "send count");
            if (!PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0)) die(c, "send COMMIT");
            if (!PQpipelineSync(c)) die(c, "sync");
            if (entries) { PQclear(ok(c, PQgetResult(c), "count")); PQclear(PQgetResult(c)); }
            PQclear(ok(c, PQgetResult(c), "COMMIT"));
            PQclear(PQgetResult(c));
            PQclear(ok(c, PQgetResult(c), "sync"));
        } else {
            if (entries) PQclear(ok(c, PQexecPrepared(c, "dvp_count", 4, cv, cl, cf, 0), "count"));
            exec(c, "COMMIT");
        }
    }
    if (pipeline && !PQexitPipelineMode(c)) die(c, "exit pipeline mode");
    double t1 = now(), cpu1 = backend_cpu(pid);
    printf("%d %.3f %.3f\n", n, t1 - t0, cpu1 - cpu0);
    PQfinish(c);
    return 0;
}
