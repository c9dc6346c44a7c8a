/*
 * TER with shifts, ported line for line from sacrebleu 2.x
 * (sacrebleu/metrics/lib_ter.py, `translation_edit_rate`), so that a
 * sentence costs microseconds instead of milliseconds.
 *
 * Exactness is the point: the same beam, the same pseudo-diagonal arithmetic
 * in IEEE doubles, the same operation preferences, the same shift candidates
 * in the same order with the same tie-breaking, the same cap on candidates.
 * tests/test_fast_ter.py compares it with sacrebleu on real data and on
 * random input, and scoring/metrics/fast_ter.py falls back to sacrebleu's own
 * code whenever this module reports a case it does not take (returns None).
 *
 * Differences that cannot change a result:
 *  - words are compared as integer ids (hypothesis words absent from the
 *    reference get -1; the algorithm only ever compares a hypothesis word with
 *    a reference word);
 *  - sacrebleu memoises matrix rows in a trie of hypothesis prefixes; rows
 *    depend only on the prefix, so here a candidate starts from the rows of
 *    the current hypothesis it shares a prefix with, and keeps only costs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COST_INS 1
#define COST_DEL 1
#define COST_SUB 1
#define MAX_SHIFT_SIZE 10
#define MAX_SHIFT_DIST 50
#define BEAM_WIDTH 25
#define MAX_SHIFT_CANDIDATES 1000
#define INT_INFINITY 10000000000000000LL /* int(1e16) */

enum { OP_UNDEF = 0, OP_NOP, OP_SUB, OP_INS, OP_DEL };

typedef struct {
    Py_ssize_t n, m;          /* hypothesis and reference lengths */
    const int *ref;           /* reference word ids */
    Py_ssize_t *lo, *hi;      /* the beam of row i: columns [lo[i], hi[i]) */
    Py_ssize_t *off;          /* where row i starts in cost/op */
    int64_t *cost;            /* banded matrix of the current hypothesis */
    unsigned char *op;
    int64_t *roll[2];         /* two rows for a candidate's cost */
    int *hyp;                 /* current hypothesis */
    int *cand;                /* a shifted candidate */
    unsigned char *trace;     /* n + m operations */
    Py_ssize_t *align;        /* reference position -> hypothesis position */
    Py_ssize_t *hyp_err_sum;  /* prefix sums, n + 1 */
    Py_ssize_t *ref_err_sum;  /* prefix sums, m + 1 */
} Ter;

static inline int64_t cell(const int64_t *row, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t j)
{
    return (j >= lo && j < hi) ? row[j - lo] : INT_INFINITY;
}

/* Row i of the matrix from row i-1 (prev, its beam [plo, phi)), for hypothesis word w.
   `op` may be NULL when only costs are wanted. Mirrors BeamEditDistance._edit_distance. */
static void compute_row(const Ter *t, Py_ssize_t i, int w, const int64_t *prev, Py_ssize_t plo,
                        Py_ssize_t phi, int64_t *cur, unsigned char *op)
{
    Py_ssize_t lo = t->lo[i], hi = t->hi[i];
    for (Py_ssize_t j = lo; j < hi; j++) {
        int64_t best;
        unsigned char best_op;
        if (j == 0) {
            best = cell(prev, plo, phi, 0) + COST_DEL;
            best_op = OP_DEL;
        } else {
            int64_t v;
            int match = (w == t->ref[j - 1]);
            best = INT_INFINITY;
            best_op = OP_UNDEF;
            /* Preference: no-op/substitution, then deletion, then insertion. */
            v = cell(prev, plo, phi, j - 1) + (match ? 0 : COST_SUB);
            if (best > v) { best = v; best_op = match ? OP_NOP : OP_SUB; }
            v = cell(prev, plo, phi, j) + COST_DEL;
            if (best > v) { best = v; best_op = OP_DEL; }
            v = (j - 1 >= lo ? cur[j - 1 - lo] : INT_INFINITY) + COST_INS;
            if (best > v) { best = v; best_op = OP_INS; }
        }
        cur[j - lo] = best;
        if (op) op[j - lo] = best_op;
    }
}

static Py_ssize_t common_prefix(const int *a, const int *b, Py_ssize_t n)
{
    Py_ssize_t p = 0;
    while (p < n && a[p] == b[p]) p++;
    return p;
}

/* Rows from+1..n of the current hypothesis, keeping operations for the trace. */
static void fill_matrix(Ter *t, Py_ssize_t from)
{
    for (Py_ssize_t i = from + 1; i <= t->n; i++)
        compute_row(t, i, t->hyp[i - 1], t->cost + t->off[i - 1], t->lo[i - 1], t->hi[i - 1],
                    t->cost + t->off[i], t->op + t->off[i]);
}

static int64_t final_cost(const Ter *t)
{
    return cell(t->cost + t->off[t->n], t->lo[t->n], t->hi[t->n], t->m);
}

/* The edit distance of t->cand, starting from the rows it shares with t->hyp. */
static int64_t candidate_cost(Ter *t)
{
    Py_ssize_t n = t->n;
    Py_ssize_t p = common_prefix(t->hyp, t->cand, n);
    if (p == n) return final_cost(t);
    const int64_t *prev = t->cost + t->off[p];
    Py_ssize_t plo = t->lo[p], phi = t->hi[p];
    int64_t *cur = NULL;
    for (Py_ssize_t i = p + 1; i <= n; i++) {
        cur = t->roll[i & 1];
        compute_row(t, i, t->cand[i - 1], prev, plo, phi, cur, NULL);
        prev = cur;
        plo = t->lo[i];
        phi = t->hi[i];
    }
    return cell(cur, t->lo[n], t->hi[n], t->m);
}

/* The trace of the current hypothesis, flipped, as an alignment and error prefix sums
   (sacrebleu's _flip_trace + trace_to_alignment). Returns 0 where sacrebleu would raise. */
static int alignment(Ter *t)
{
    Py_ssize_t i = t->n, j = t->m, k = 0;
    while (i > 0 || j > 0) {
        unsigned char o;
        if (j >= t->lo[i] && j < t->hi[i]) o = t->op[t->off[i] + j - t->lo[i]];
        else o = OP_UNDEF;
        t->trace[k++] = o;
        if (o == OP_NOP || o == OP_SUB) { i--; j--; }
        else if (o == OP_INS) j--;
        else if (o == OP_DEL) i--;
        else return 0;
    }
    Py_ssize_t pos_hyp = -1, pos_ref = -1;
    t->hyp_err_sum[0] = 0;
    t->ref_err_sum[0] = 0;
    while (k > 0) {
        unsigned char o = t->trace[--k];
        if (o == OP_NOP || o == OP_SUB) {
            int err = (o == OP_SUB);
            pos_hyp++;
            pos_ref++;
            t->align[pos_ref] = pos_hyp;
            t->hyp_err_sum[pos_hyp + 1] = t->hyp_err_sum[pos_hyp] + err;
            t->ref_err_sum[pos_ref + 1] = t->ref_err_sum[pos_ref] + err;
        } else if (o == OP_DEL) {       /* flipped: an insertion in the hypothesis */
            pos_hyp++;
            t->hyp_err_sum[pos_hyp + 1] = t->hyp_err_sum[pos_hyp] + 1;
        } else {                        /* flipped: a deletion from the reference */
            pos_ref++;
            t->align[pos_ref] = pos_hyp;
            t->ref_err_sum[pos_ref + 1] = t->ref_err_sum[pos_ref] + 1;
        }
    }
    return 1;
}

/* Python slice words[a:b] appended to dst, with Python's clipping of b. */
static Py_ssize_t put(int *dst, Py_ssize_t k, const int *src, Py_ssize_t a, Py_ssize_t b, Py_ssize_t n)
{
    if (a > n) a = n;
    if (b > n) b = n;
    if (b > a) {
        memcpy(dst + k, src + a, (size_t)(b - a) * sizeof(int));
        k += b - a;
    }
    return k;
}

/* sacrebleu's _perform_shift, into t->cand. */
static void perform_shift(Ter *t, Py_ssize_t start, Py_ssize_t length, Py_ssize_t target)
{
    const int *w = t->hyp;
    int *out = t->cand;
    Py_ssize_t n = t->n, k = 0;
    if (target < start) {
        k = put(out, k, w, 0, target, n);
        k = put(out, k, w, start, start + length, n);
        k = put(out, k, w, target, start, n);
        k = put(out, k, w, start + length, n, n);
    } else if (target > start + length) {
        k = put(out, k, w, 0, start, n);
        k = put(out, k, w, start + length, target, n);
        k = put(out, k, w, start, start + length, n);
        k = put(out, k, w, target, n, n);
    } else {
        k = put(out, k, w, 0, start, n);
        k = put(out, k, w, start + length, length + target, n);
        k = put(out, k, w, start, start + length, n);
        k = put(out, k, w, length + target, n, n);
    }
    (void)k; /* always n */
}

typedef struct {
    int found;
    int64_t delta;
    Py_ssize_t length, start, target;
} Shift;

static int better(const Shift *c, const Shift *best)
{
    /* sacrebleu ranks (delta, length, -start_h, -idx) as a tuple, highest first. */
    if (!best->found) return 1;
    if (c->delta != best->delta) return c->delta > best->delta;
    if (c->length != best->length) return c->length > best->length;
    if (c->start != best->start) return c->start < best->start;
    return c->target < best->target;
}

/* sacrebleu's _shift. Returns 0 where sacrebleu would raise. */
static int find_shift(Ter *t, Shift *best, long *checked)
{
    Py_ssize_t n = t->n, m = t->m;
    const int *h = t->hyp, *r = t->ref;
    int64_t pre_score = final_cost(t);
    if (pre_score >= INT_INFINITY || !alignment(t)) return 0;
    best->found = 0;
    for (Py_ssize_t sh = 0; sh < n; sh++) {
        for (Py_ssize_t sr = 0; sr < m; sr++) {
            if (labs((long)(sr - sh)) > MAX_SHIFT_DIST) continue;
            Py_ssize_t length = 0;
            while (h[sh + length] == r[sr + length] && length < MAX_SHIFT_SIZE) {
                length++;
                /* --- the body of the loop over _find_shifted_pairs --- */
                if (t->hyp_err_sum[sh + length] - t->hyp_err_sum[sh] != 0 &&
                    t->ref_err_sum[sr + length] - t->ref_err_sum[sr] != 0 &&
                    !(sh <= t->align[sr] && t->align[sr] < sh + length)) {
                    Py_ssize_t prev_idx = -1;
                    for (Py_ssize_t offset = -1; offset < length; offset++) {
                        Py_ssize_t idx;
                        if (sr + offset == -1) idx = 0;
                        else if (sr + offset < m) idx = t->align[sr + offset] + 1;
                        else break;
                        if (idx == prev_idx) continue;
                        prev_idx = idx;
                        perform_shift(t, sh, length, idx);
                        int64_t cost = candidate_cost(t);
                        if (cost >= INT_INFINITY) return 0;
                        Shift c = {1, pre_score - cost, length, sh, idx};
                        (*checked)++;
                        if (better(&c, best)) *best = c;
                    }
                    if (*checked >= MAX_SHIFT_CANDIDATES) return 1;
                }
                /* --- */
                if (n == sh + length || m == sr + length) break;
            }
        }
    }
    return 1;
}

/* Returns the number of edits, or -1 where sacrebleu would raise. */
static int64_t ter_edits(Ter *t)
{
    Py_ssize_t n = t->n, m = t->m;
    /* sacrebleu: length_ratio = n_ref / n_hyp if words_h else 1 */
    double ratio = n ? (double)m / (double)n : 1.0;
    Py_ssize_t beam = BEAM_WIDTH;
    if (BEAM_WIDTH < ratio / 2) beam = (Py_ssize_t)ceil(ratio / 2 + BEAM_WIDTH);

    Py_ssize_t total = m + 1;
    t->lo[0] = 0;
    t->hi[0] = m + 1;
    t->off[0] = 0;
    for (Py_ssize_t i = 1; i <= n; i++) {
        Py_ssize_t diag = (Py_ssize_t)floor((double)i * ratio);
        Py_ssize_t lo = diag - beam, hi = diag + beam;
        if (lo < 0) lo = 0;
        if (hi > m + 1) hi = m + 1;
        if (i == n) hi = m + 1;
        if (hi < lo) hi = lo;
        t->lo[i] = lo;
        t->hi[i] = hi;
        t->off[i] = total;
        total += hi - lo;
    }
    t->cost = malloc((size_t)total * sizeof(int64_t));
    t->op = malloc((size_t)total);
    if (!t->cost || !t->op) return -2;
    for (Py_ssize_t j = 0; j <= m; j++) {
        t->cost[j] = j * COST_INS;
        t->op[j] = OP_INS;
    }
    fill_matrix(t, 0);

    long checked = 0;
    int64_t shifts = 0;
    for (;;) {
        Shift best;
        if (!find_shift(t, &best, &checked)) return -1;
        if (checked >= MAX_SHIFT_CANDIDATES) break;
        if (!best.found || best.delta <= 0) break;
        shifts++;
        perform_shift(t, best.start, best.length, best.target);
        Py_ssize_t p = common_prefix(t->hyp, t->cand, n);
        memcpy(t->hyp, t->cand, (size_t)n * sizeof(int));
        fill_matrix(t, p);
    }
    int64_t distance = final_cost(t);
    if (distance >= INT_INFINITY) return -1;
    return shifts + distance;
}

static void ter_free(Ter *t)
{
    /* malloc, not PyMem: the matrix is allocated with the GIL released. */
    free(t->lo); free(t->hi); free(t->off);
    free(t->cost); free(t->op);
    free(t->roll[0]); free(t->roll[1]);
    free(t->hyp); free(t->cand); free((void *)t->ref);
    free(t->trace); free(t->align);
    free(t->hyp_err_sum); free(t->ref_err_sum);
}

PyDoc_STRVAR(translation_edit_rate_doc,
"translation_edit_rate(words_hyp, words_ref) -> (num_edits, ref_length) or None\n\n"
"sacrebleu.metrics.lib_ter.translation_edit_rate, compiled. None where sacrebleu\n"
"would raise (an unreachable matrix corner), so the caller can defer to it.");

static PyObject *py_translation_edit_rate(PyObject *self, PyObject *args)
{
    PyObject *hyp_obj, *ref_obj;
    if (!PyArg_ParseTuple(args, "OO:translation_edit_rate", &hyp_obj, &ref_obj)) return NULL;
    PyObject *hyp_seq = PySequence_Fast(hyp_obj, "words_hyp must be a sequence");
    if (!hyp_seq) return NULL;
    PyObject *ref_seq = PySequence_Fast(ref_obj, "words_ref must be a sequence");
    if (!ref_seq) { Py_DECREF(hyp_seq); return NULL; }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyp_seq), m = PySequence_Fast_GET_SIZE(ref_seq);
    PyObject *result = NULL, *ids = NULL;
    Ter t;
    memset(&t, 0, sizeof t);

    if (m == 0) { /* sacrebleu: special treatment of empty references */
        result = Py_BuildValue("(nn)", n, (Py_ssize_t)0);
        goto done;
    }
    if (n > INT_MAX / 2 || m > INT_MAX / 2) {
        PyErr_SetString(PyExc_OverflowError, "too many words");
        goto done;
    }
    int *ref = malloc((size_t)m * sizeof(int));
    t.ref = ref;
    t.hyp = malloc((size_t)(n ? n : 1) * sizeof(int));
    t.cand = malloc((size_t)(n ? n : 1) * sizeof(int));
    t.lo = malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t.hi = malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t.off = malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t.roll[0] = malloc((size_t)(m + 1) * sizeof(int64_t));
    t.roll[1] = malloc((size_t)(m + 1) * sizeof(int64_t));
    t.trace = malloc((size_t)(n + m + 1));
    t.align = malloc((size_t)m * sizeof(Py_ssize_t));
    t.hyp_err_sum = malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t.ref_err_sum = malloc((size_t)(m + 1) * sizeof(Py_ssize_t));
    if (!ref || !t.hyp || !t.cand || !t.lo || !t.hi || !t.off || !t.roll[0] || !t.roll[1] ||
        !t.trace || !t.align || !t.hyp_err_sum || !t.ref_err_sum) {
        PyErr_NoMemory();
        goto done;
    }
    /* Words become ids by their first position in the reference (== on str, like sacrebleu). */
    ids = PyDict_New();
    if (!ids) goto done;
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *word = PySequence_Fast_GET_ITEM(ref_seq, j);
        PyObject *known = PyDict_GetItemWithError(ids, word);
        if (known) {
            ref[j] = (int)PyLong_AsLong(known);
        } else {
            if (PyErr_Occurred()) goto done;
            PyObject *id = PyLong_FromSsize_t(j);
            if (!id || PyDict_SetItem(ids, word, id) < 0) { Py_XDECREF(id); goto done; }
            Py_DECREF(id);
            ref[j] = (int)j;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *known = PyDict_GetItemWithError(ids, PySequence_Fast_GET_ITEM(hyp_seq, i));
        if (!known && PyErr_Occurred()) goto done;
        t.hyp[i] = known ? (int)PyLong_AsLong(known) : -1;
    }
    t.n = n;
    t.m = m;
    int64_t edits;
    Py_BEGIN_ALLOW_THREADS
    edits = ter_edits(&t);
    Py_END_ALLOW_THREADS
    if (edits == -2) PyErr_NoMemory();
    else if (edits == -1) result = Py_NewRef(Py_None);
    else result = Py_BuildValue("(Ln)", (long long)edits, m);

done:
    ter_free(&t);
    Py_XDECREF(ids);
    Py_DECREF(hyp_seq);
    Py_DECREF(ref_seq);
    return result;
}

static PyMethodDef methods[] = {
    {"translation_edit_rate", py_translation_edit_rate, METH_VARARGS, translation_edit_rate_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ter",
    "sacrebleu's TER (lib_ter.translation_edit_rate), compiled; see fast_ter.py.", -1, methods,
};

PyMODINIT_FUNC PyInit__ter(void)
{
    return PyModule_Create(&module);
}
