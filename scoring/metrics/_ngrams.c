/*
 * The n-gram match counts of sacrebleu's BLEU and chrF, compiled.
 *
 * sacrebleu builds a Counter of n-grams per segment and order, for the
 * hypothesis and every reference, then sums min(hyp count, ref count) over the
 * hypothesis n-grams. The counts are integers, so any exact multiset
 * intersection gives the same numbers: here a hash table of the hypothesis's
 * n-grams (keys compared element by element, never by hash alone), and one pass
 * over each reference. Everything else (tokenisation, which reference wins,
 * the scores) stays sacrebleu's, in scoring/metrics/fast_ngrams.py;
 * tests/scoring/test_fast_ngrams.py compares both with sacrebleu.
 *
 *   chrf_stats(hyp: str, refs: tuple[str, ...], order: int) -> list[list[int]]
 *       per reference, [hyp, ref, match] for character n-grams of orders 1..order of
 *       strings whose whitespace is already removed (CHRF's _get_match_statistics).
 *   chrf_best(hyp: str, refs: tuple[str, ...], order: int, factor: float, eps_smoothing: bool) -> list[int]
 *       the same from raw strings (whitespace removed here, as "".join(s.split())), of the
 *       reference with the best f-score (computed as CHRF._compute_f_score, the first on a tie).
 *   bleu_stats(hyp: list[str], refs: tuple[list[str], ...], order: int) -> list[int]
 *       [hyp_len, closest ref_len, correct_1..order, total_1..order] of token lists
 *       (BLEU's _compute_segment_statistics; ref counts merged by max).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t hash;
    Py_ssize_t start;    /* -1: empty slot */
    int n;
    Py_ssize_t count_h;
    Py_ssize_t count_r;  /* current reference */
    Py_ssize_t max_r;    /* max over references (BLEU) */
} Entry;

typedef struct {
    Entry *slots;
    size_t mask;
} Table;

static int table_init(Table *t, Py_ssize_t items)
{
    size_t size = 16;
    while (size < (size_t)items * 2 + 1)
        size <<= 1;
    t->slots = (Entry *)malloc(size * sizeof(Entry));
    if (!t->slots)
        return -1;
    for (size_t i = 0; i < size; i++)
        t->slots[i].start = -1;
    t->mask = size - 1;
    return 0;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* ---- chrF: code points ---------------------------------------------------------------------------- */

static inline uint64_t cp_hash(const Py_UCS4 *s, int n)
{
    uint64_t h = (uint64_t)n;
    for (int k = 0; k < n; k++)
        h = mix(h, s[k]);
    return h;
}

/* The slot of n-gram s[0..n) in t (hypothesis text hyp), or of the empty slot where it would go. */
static Entry *cp_find(Table *t, const Py_UCS4 *hyp, const Py_UCS4 *s, int n, uint64_t h)
{
    size_t i = h & t->mask;
    for (;;) {
        Entry *e = &t->slots[i];
        if (e->start < 0)
            return e;
        if (e->hash == h && e->n == n && memcmp(hyp + e->start, s, (size_t)n * sizeof(Py_UCS4)) == 0)
            return e;
        i = (i + 1) & t->mask;
    }
}

/* The code points of s without its whitespace: "".join(s.split()) (str.split's whitespace is
   Py_UNICODE_ISSPACE). Returns a PyMem buffer, its length in *len. */
static Py_UCS4 *strip_copy(PyObject *s, Py_ssize_t *len)
{
    Py_ssize_t n = PyUnicode_GetLength(s), k = 0;
    Py_UCS4 *buf = PyUnicode_AsUCS4Copy(s);
    if (!buf)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(buf[i]))
            buf[k++] = buf[i];
    *len = k;
    return buf;
}

/* chrF's f-score of one reference's stats, operation for operation as CHRF._compute_f_score
   (IEEE doubles, no contraction: setup.py compiles with -ffp-contract=off). */
static double chrf_f_score(const Py_ssize_t *st, int order, double factor, int eps_smoothing)
{
    const double eps = 1e-16;
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;
    for (int i = 0; i < order; i++) {
        Py_ssize_t n_hyp = st[3 * i], n_ref = st[3 * i + 1], n_match = st[3 * i + 2];
        double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : eps;
        double rec = n_ref > 0 ? (double)n_match / (double)n_ref : eps;
        double denom = factor * prec + rec;
        score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective_order += 1;
        }
    }
    if (eps_smoothing)
        return 100 * score / order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= effective_order;
        avg_rec /= effective_order;
    }
    if (avg_prec + avg_rec != 0) {
        score = (1 + factor) * avg_prec * avg_rec;
        score /= (factor * avg_prec) + avg_rec;
        return 100 * score;
    }
    return 0.0;
}

static PyObject *chrf_stats_impl(PyObject *args, int best)
{
    PyObject *hyp_obj, *refs;
    int order, eps_smoothing = 0;
    double factor = 4.0;
    if (best) {
        if (!PyArg_ParseTuple(args, "UO!idp", &hyp_obj, &PyTuple_Type, &refs, &order, &factor, &eps_smoothing))
            return NULL;
    } else if (!PyArg_ParseTuple(args, "UO!i", &hyp_obj, &PyTuple_Type, &refs, &order)) {
        return NULL;
    }
    if (order < 1 || order > 64) {
        PyErr_SetString(PyExc_ValueError, "order must be 1..64");
        return NULL;
    }
    Py_ssize_t lh = 0;
    Py_UCS4 *hyp = best ? strip_copy(hyp_obj, &lh) : PyUnicode_AsUCS4Copy(hyp_obj);
    if (!hyp)
        return NULL;
    if (!best)
        lh = PyUnicode_GetLength(hyp_obj);
    Py_ssize_t nrefs = PyTuple_GET_SIZE(refs);
    PyObject *out = best ? NULL : PyList_New(nrefs);
    Table t = {NULL, 0};
    Py_UCS4 **ref_cp = (Py_UCS4 **)calloc((size_t)(nrefs ? nrefs : 1), sizeof(Py_UCS4 *));
    Py_ssize_t *ref_len = (Py_ssize_t *)calloc((size_t)(nrefs ? nrefs : 1), sizeof(Py_ssize_t));
    Py_ssize_t *stats = (Py_ssize_t *)calloc((size_t)(nrefs ? nrefs : 1) * 3 * (size_t)order, sizeof(Py_ssize_t));
    if ((!best && !out) || !ref_cp || !ref_len || !stats || table_init(&t, lh > 0 ? lh : 1) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t r = 0; r < nrefs; r++) {
        PyObject *ref = PyTuple_GET_ITEM(refs, r);
        if (!PyUnicode_Check(ref)) {
            PyErr_SetString(PyExc_TypeError, "references must be str");
            goto fail;
        }
        if (best) {
            ref_cp[r] = strip_copy(ref, &ref_len[r]);
        } else {
            ref_len[r] = PyUnicode_GetLength(ref);
            ref_cp[r] = PyUnicode_AsUCS4Copy(ref);
        }
        if (!ref_cp[r])
            goto fail;
    }
    for (int n = 1; n <= order; n++) {
        /* the hypothesis's n-grams of this order */
        for (size_t i = 0; i <= t.mask; i++)
            t.slots[i].start = -1;
        Py_ssize_t hyp_count = lh - n + 1 > 0 ? lh - n + 1 : 0;
        for (Py_ssize_t i = 0; i < hyp_count; i++) {
            uint64_t h = cp_hash(hyp + i, n);
            Entry *e = cp_find(&t, hyp, hyp + i, n, h);
            if (e->start < 0) {
                e->start = i; e->hash = h; e->n = n; e->count_h = 0;
            }
            e->count_h++;
        }
        for (Py_ssize_t r = 0; r < nrefs; r++) {
            for (size_t i = 0; i <= t.mask; i++)
                t.slots[i].count_r = 0;
            Py_ssize_t ref_count = ref_len[r] - n + 1 > 0 ? ref_len[r] - n + 1 : 0, match = 0;
            for (Py_ssize_t j = 0; j < ref_count; j++) {
                uint64_t h = cp_hash(ref_cp[r] + j, n);
                Entry *e = cp_find(&t, hyp, ref_cp[r] + j, n, h);
                if (e->start >= 0 && e->count_r < e->count_h) {
                    e->count_r++;
                    match++;    /* sum of min(count_h, count_r), counted as it grows */
                }
            }
            Py_ssize_t *st = stats + (r * order + (n - 1)) * 3;
            st[0] = ref_count > 0 ? hyp_count : 0;   /* sacrebleu: no hits without a reference n-gram */
            st[1] = ref_count;
            st[2] = match;
        }
    }
    /* best: the reference with the highest f-score, the first on a tie (CHRF._compute_segment_statistics);
       no reference gives [] as there. */
    Py_ssize_t first = 0, last = nrefs;
    if (best) {
        double best_f = -1.0;
        Py_ssize_t pick = -1;
        for (Py_ssize_t r = 0; r < nrefs; r++) {
            double f = chrf_f_score(stats + r * 3 * order, order, factor, eps_smoothing);
            if (f > best_f) {
                best_f = f;
                pick = r;
            }
        }
        first = pick < 0 ? 0 : pick;
        last = pick < 0 ? 0 : pick + 1;
    }
    for (Py_ssize_t r = first; r < last; r++) {
        PyObject *row = PyList_New(3 * order);
        if (!row)
            goto fail;
        for (int k = 0; k < 3 * order; k++) {
            PyObject *v = PyLong_FromSsize_t(stats[r * 3 * order + k]);
            if (!v) {
                Py_DECREF(row);
                goto fail;
            }
            PyList_SET_ITEM(row, k, v);
        }
        if (best) {
            out = row;
        } else {
            PyList_SET_ITEM(out, r, row);
        }
    }
    if (best && !out)
        out = PyList_New(0);
    for (Py_ssize_t r = 0; r < nrefs; r++)
        PyMem_Free(ref_cp[r]);
    free(ref_cp); free(ref_len); free(stats); free(t.slots); PyMem_Free(hyp);
    return out;
fail:
    if (ref_cp)
        for (Py_ssize_t r = 0; r < nrefs; r++)
            PyMem_Free(ref_cp[r]);
    free(ref_cp); free(ref_len); free(stats); free(t.slots); PyMem_Free(hyp);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *chrf_stats(PyObject *self, PyObject *args) { return chrf_stats_impl(args, 0); }
static PyObject *chrf_best(PyObject *self, PyObject *args) { return chrf_stats_impl(args, 1); }

/* ---- BLEU: tokens ------------------------------------------------------------------------------------ */

typedef struct {
    PyObject **tok;      /* borrowed items of the list */
    Py_hash_t *th;       /* their hashes */
    Py_ssize_t len;
} Tokens;

static int tokens_init(Tokens *s, PyObject *list)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "token lists must be lists of str");
        return -1;
    }
    s->len = PyList_GET_SIZE(list);
    s->tok = ((PyListObject *)list)->ob_item;
    s->th = (Py_hash_t *)malloc((size_t)(s->len ? s->len : 1) * sizeof(Py_hash_t));
    if (!s->th) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < s->len; i++) {
        if (!PyUnicode_Check(s->tok[i])) {
            PyErr_SetString(PyExc_TypeError, "tokens must be str");
            return -1;
        }
        s->th[i] = PyObject_Hash(s->tok[i]);
        if (s->th[i] == -1)
            return -1;
    }
    return 0;
}

static inline uint64_t tok_hash(const Tokens *s, Py_ssize_t i, int n)
{
    uint64_t h = (uint64_t)n * 0x100000001b3ULL;
    for (int k = 0; k < n; k++)
        h = mix(h, (uint64_t)s->th[i + k]);
    return h;
}

/* 1 when hyp[a..a+n) equals other[b..b+n), 0 when not, -1 on error. */
static int tok_equal(const Tokens *hyp, Py_ssize_t a, const Tokens *other, Py_ssize_t b, int n)
{
    for (int k = 0; k < n; k++) {
        PyObject *x = hyp->tok[a + k], *y = other->tok[b + k];
        if (x == y)
            continue;
        if (hyp->th[a + k] != other->th[b + k])
            return 0;
        int eq = PyUnicode_Compare(x, y);
        if (eq == -1 && PyErr_Occurred())
            return -1;
        if (eq != 0)
            return 0;
    }
    return 1;
}

static Entry *tok_find(Table *t, const Tokens *hyp, const Tokens *s, Py_ssize_t i, int n, uint64_t h, int *err)
{
    size_t k = h & t->mask;
    for (;;) {
        Entry *e = &t->slots[k];
        if (e->start < 0)
            return e;
        if (e->hash == h && e->n == n) {
            int eq = tok_equal(hyp, e->start, s, i, n);
            if (eq < 0) {
                *err = 1;
                return e;
            }
            if (eq)
                return e;
        }
        k = (k + 1) & t->mask;
    }
}

static PyObject *bleu_stats(PyObject *self, PyObject *args)
{
    PyObject *hyp_list, *refs;
    int order;
    if (!PyArg_ParseTuple(args, "O!O!i", &PyList_Type, &hyp_list, &PyTuple_Type, &refs, &order))
        return NULL;
    if (order < 1 || order > 64) {
        PyErr_SetString(PyExc_ValueError, "order must be 1..64");
        return NULL;
    }
    Py_ssize_t nrefs = PyTuple_GET_SIZE(refs);
    Tokens hyp = {NULL, NULL, 0};
    Tokens *ref = (Tokens *)calloc((size_t)(nrefs ? nrefs : 1), sizeof(Tokens));
    Py_ssize_t *correct = (Py_ssize_t *)calloc((size_t)order, sizeof(Py_ssize_t));
    Table t = {NULL, 0};
    PyObject *out = NULL;
    int err = 0;
    if (!ref || !correct) {
        PyErr_NoMemory();
        goto done;
    }
    Py_INCREF(hyp_list);
    if (tokens_init(&hyp, hyp_list) < 0)
        goto done_hyp;
    for (Py_ssize_t r = 0; r < nrefs; r++)
        if (tokens_init(&ref[r], PyTuple_GET_ITEM(refs, r)) < 0)
            goto done_hyp;
    if (table_init(&t, hyp.len * order + 1) < 0) {
        PyErr_NoMemory();
        goto done_hyp;
    }
    /* the hypothesis's n-grams of every order */
    for (int n = 1; n <= order; n++)
        for (Py_ssize_t i = 0; i + n <= hyp.len; i++) {
            uint64_t h = tok_hash(&hyp, i, n);
            Entry *e = tok_find(&t, &hyp, &hyp, i, n, h, &err);
            if (err)
                goto done_hyp;
            if (e->start < 0) {
                e->start = i; e->hash = h; e->n = n; e->count_h = 0; e->max_r = 0;
            }
            e->count_h++;
        }
    /* each reference's counts of those n-grams; the merged count is the max over references */
    for (Py_ssize_t r = 0; r < nrefs; r++) {
        for (size_t k = 0; k <= t.mask; k++)
            t.slots[k].count_r = 0;
        for (int n = 1; n <= order; n++)
            for (Py_ssize_t j = 0; j + n <= ref[r].len; j++) {
                uint64_t h = tok_hash(&ref[r], j, n);
                Entry *e = tok_find(&t, &hyp, &ref[r], j, n, h, &err);
                if (err)
                    goto done_hyp;
                if (e->start >= 0 && ++e->count_r > e->max_r)
                    e->max_r = e->count_r;
            }
    }
    for (size_t k = 0; k <= t.mask; k++) {
        Entry *e = &t.slots[k];
        if (e->start >= 0)
            correct[e->n - 1] += e->count_h < e->max_r ? e->count_h : e->max_r;
    }
    /* the closest reference length, the shorter one on a tie (BLEU._get_closest_ref_len) */
    Py_ssize_t closest_diff = -1, closest_len = -1;
    for (Py_ssize_t r = 0; r < nrefs; r++) {
        Py_ssize_t len = ref[r].len, diff = hyp.len > len ? hyp.len - len : len - hyp.len;
        if (closest_diff == -1 || diff < closest_diff) {
            closest_diff = diff;
            closest_len = len;
        } else if (diff == closest_diff && len < closest_len) {
            closest_len = len;
        }
    }
    out = PyList_New(2 + 2 * order);
    if (!out)
        goto done_hyp;
    PyList_SET_ITEM(out, 0, PyLong_FromSsize_t(hyp.len));
    PyList_SET_ITEM(out, 1, PyLong_FromSsize_t(closest_len));
    for (int n = 1; n <= order; n++) {
        PyList_SET_ITEM(out, 1 + n, PyLong_FromSsize_t(correct[n - 1]));
        PyList_SET_ITEM(out, 1 + order + n, PyLong_FromSsize_t(hyp.len - n + 1 > 0 ? hyp.len - n + 1 : 0));
    }
    for (Py_ssize_t k = 0; k < 2 + 2 * order; k++)
        if (!PyList_GET_ITEM(out, k)) {
            Py_CLEAR(out);
            break;
        }
done_hyp:
    Py_DECREF(hyp_list);
done:
    if (ref)
        for (Py_ssize_t r = 0; r < nrefs; r++)
            free(ref[r].th);
    free(ref); free(hyp.th); free(correct); free(t.slots);
    return out;
}

static PyMethodDef methods[] = {
    {"chrf_stats", chrf_stats, METH_VARARGS, "chrF's [hyp, ref, match] per order, per reference."},
    {"chrf_best", chrf_best, METH_VARARGS,
     "chrf_best(hyp, refs, order, factor, eps_smoothing): the best reference's stats, whitespace removed here."},
    {"bleu_stats", bleu_stats, METH_VARARGS, "BLEU's segment statistics from token lists."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ngrams", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ngrams(void) { return PyModule_Create(&module); }
