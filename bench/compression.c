/*
 * compression: compresses and decompresses each file of a directory of stored-document samples (the content a
 * DocumentCompressor compresses: part table + parts) one document at a time, in-process, with each candidate codec,
 * and prints per codec the mean stored bytes per document (zstd frames without their 4-byte magic plus our format
 * byte, as Sources/DocumentCompression stores them) and the CPU per document to compress and to decompress.
 * Built and run by bench/compression.sh.
 *
 *   compression SAMPLE_DIR DICTIONARY_FILE
 *
 * Codecs: zstd levels 1 and 3 with the dictionary (a digested CDict/DDict, as the worker uses it), zstd level 1
 * without one, lz4 (fast, acceleration 1) with the same bytes as its dictionary and without, and none.
 */
#include <dirent.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

typedef struct { unsigned char *data; size_t len; } blob;

static blob slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    blob b = { malloc((size_t)ftell(f) + 1), (size_t)ftell(f) };
    rewind(f);
    if (fread(b.data, 1, b.len, f) != b.len) { perror(path); exit(1); }
    fclose(f);
    return b;
}

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

enum { ZSTD_DICT1, ZSTD_DICT3, ZSTD_PLAIN1, LZ4_DICT, LZ4_PLAIN, CODECS };
static const char *names[CODECS] = { "zstd -1 + dictionary", "zstd -3 + dictionary", "zstd -1, no dictionary",
                                     "lz4 + dictionary", "lz4, no dictionary" };

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: compression SAMPLE_DIR DICTIONARY_FILE\n"); return 2; }
    DIR *dir = opendir(argv[1]);
    if (!dir) { perror(argv[1]); return 1; }
    size_t count = 0, cap = 1024;
    char **paths = malloc(cap * sizeof *paths);
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        if (count == cap) paths = realloc(paths, (cap *= 2) * sizeof *paths);
        paths[count] = malloc(strlen(argv[1]) + strlen(e->d_name) + 2);
        sprintf(paths[count++], "%s/%s", argv[1], e->d_name);
    }
    closedir(dir);
    qsort(paths, count, sizeof *paths, cmp);
    blob *docs = malloc(count * sizeof *docs);
    size_t raw = 0, maxlen = 0;
    for (size_t i = 0; i < count; i++) {
        docs[i] = slurp(paths[i]);
        raw += docs[i].len;
        if (docs[i].len > maxlen) maxlen = docs[i].len;
    }
    blob dict = slurp(argv[2]);
    const char *lz4dict = (const char *)dict.data;
    int lz4dictlen = dict.len > 65536 ? 65536 : (int)dict.len;

    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    ZSTD_CDict *cdict1 = ZSTD_createCDict(dict.data, dict.len, 1), *cdict3 = ZSTD_createCDict(dict.data, dict.len, 3);
    ZSTD_DDict *ddict = ZSTD_createDDict(dict.data, dict.len);
    LZ4_stream_t *lz4 = LZ4_createStream();
    size_t bound = ZSTD_compressBound(maxlen) + (size_t)LZ4_compressBound((int)maxlen);
    unsigned char *out = malloc(bound), *back = malloc(maxlen + 1);

    printf("%zu documents, %.1f bytes each uncompressed\n\n", count, (double)raw / (double)count);
    printf("| codec | stored bytes/document | compress µs/document | decompress µs/document |\n|---|---|---|---|\n");
    printf("| none | %.1f | 0 | 0 |\n", (double)raw / (double)count);
    for (int codec = 0; codec < CODECS; codec++) {
        size_t stored = 0;
        double compressing = 0, decompressing = 0;
        for (size_t i = 0; i < count; i++) {
            const blob d = docs[i];
            double t0 = cpu();
            size_t n;
            if (codec == ZSTD_DICT1 || codec == ZSTD_DICT3 || codec == ZSTD_PLAIN1) {
                ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
                ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
                ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
                if (codec == ZSTD_PLAIN1) ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
                else ZSTD_CCtx_refCDict(cctx, codec == ZSTD_DICT1 ? cdict1 : cdict3);
                n = ZSTD_compress2(cctx, out, bound, d.data, d.len);
                if (ZSTD_isError(n)) { fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(n)); return 1; }
                double t1 = cpu();
                size_t m = codec == ZSTD_PLAIN1 ? ZSTD_decompressDCtx(dctx, back, maxlen + 1, out, n)
                                                : ZSTD_decompress_usingDDict(dctx, back, maxlen + 1, out, n, ddict);
                decompressing += cpu() - t1;
                if (m != d.len || memcmp(back, d.data, d.len)) { fprintf(stderr, "zstd round trip %s\n", paths[i]); return 1; }
                compressing += t1 - t0;
                stored += n - 4 + 1;  /* no magic, plus the format byte */
            } else {
                LZ4_resetStream_fast(lz4);
                if (codec == LZ4_DICT) LZ4_loadDict(lz4, lz4dict, lz4dictlen);
                int k = LZ4_compress_fast_continue(lz4, (const char *)d.data, (char *)out, (int)d.len, (int)bound, 1);
                if (k <= 0) { fprintf(stderr, "lz4 failed\n"); return 1; }
                double t1 = cpu();
                int m = codec == LZ4_DICT
                    ? LZ4_decompress_safe_usingDict((char *)out, (char *)back, k, (int)maxlen + 1, lz4dict, lz4dictlen)
                    : LZ4_decompress_safe((char *)out, (char *)back, k, (int)maxlen + 1);
                decompressing += cpu() - t1;
                if (m != (int)d.len || memcmp(back, d.data, d.len)) { fprintf(stderr, "lz4 round trip %s\n", paths[i]); return 1; }
                compressing += t1 - t0;
                stored += (size_t)k + 1 + 2;  /* the format byte and a 2-byte length lz4 blocks need to be read back */
            }
        }
        printf("| %s | %.1f | %.2f | %.2f |\n", names[codec], (double)stored / (double)count,
               compressing * 1e6 / (double)count, decompressing * 1e6 / (double)count);
    }
    return 0;
}
