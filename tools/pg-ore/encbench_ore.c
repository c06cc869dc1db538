/*
 * encbench_ore: the server side of encbench's order-revealing encryption
 * (Lewi-Wu block ORE, see internal/encryption/ore). A stored value (format
 * version 4, 430 bytes) is 'O', version, key id (4 bytes), left part (8
 * blocks of 16-byte PRF value + permuted byte), 16-byte nonce, the right
 * part's 8 x 256 bits, then a 16-byte MAC that only the key holder can
 * check (the server ignores it). A query bound is 'Q', version, key id and
 * a left part only. Comparing needs no key: the first block whose left
 * parts differ is where the plaintexts first differ, and one hash there
 * (the low bit of AES-128 keyed by the nonce, applied to the PRF value)
 * unmasks the answer bit.
 *
 * Input is checked (ore_in, ore_recv): the form and the lengths. A
 * comparison that a genuine pair never gives is an error, not an order:
 * two values that order each other differently in the two directions, or
 * two whose last left blocks are equal (the last block is the PRF of the
 * whole plaintext, so it names it) while their left parts are not.
 * Columns keep bounds out with CHECK (ore_is_value(col)).
 *
 * Each call site (FmgrInfo) keeps a memo of answers keyed by both sides'
 * whole left parts. An index range scan over many rows of one k, or a
 * sequential scan of a skewed column, then costs two 136-byte compares per
 * row instead of an AES key schedule. What the server learns is unchanged:
 * it could always tell equal values apart by their left parts.
 *
 * What no check here can catch: a writer to the column can build a value
 * from public data (left blocks of stored values mixed, right bits set
 * from the other values' left parts and its own nonce, so that both
 * directions of every comparison agree). Such a value may order
 * inconsistently (a < b < forged < a), so that an index scan and a
 * sequential scan return different rows; amcheck does not see it, since
 * every comparison it repeats gives the same answer. The client detects it
 * when it reads the value (its MAC), not before.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/fmgrprotos.h"

/* The low-level AES calls are deprecated in OpenSSL 3 but are the only
 * ones without a context allocation and provider lookup per call; a
 * comparison is one key schedule and one block. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/aes.h>
#include <string.h>

PG_MODULE_MAGIC;

#define ORE_HEADER 6
#define ORE_BLOCKS 8
#define ORE_LEFT_BLOCK 17
#define ORE_LEFT (ORE_BLOCKS * ORE_LEFT_BLOCK)
#define ORE_NONCE 16
#define ORE_ROW 32
#define ORE_RIGHT (ORE_NONCE + ORE_BLOCKS * ORE_ROW)
#define ORE_FULL (ORE_LEFT + ORE_RIGHT)
#define ORE_MAC 16
#define ORE_VERSION 4

typedef struct
{
	uint32		key_id;
	const unsigned char *left;
	const unsigned char *right; /* nonce then bits; NULL for a query bound */
} OreParts;

static void
ore_bad(const char *what, Size n)
{
	ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					errmsg("not an encbench ore %s (%zu bytes, format version %d)", what, n, ORE_VERSION)));
}

static void
ore_parse(bytea *b, OreParts *p)
{
	const unsigned char *d = (const unsigned char *) VARDATA_ANY(b);
	Size		n = VARSIZE_ANY_EXHDR(b);

	if (n < ORE_HEADER || d[1] != ORE_VERSION)
		ore_bad("value or bound", n);
	p->key_id = ((uint32) d[2] << 24) | ((uint32) d[3] << 16) | ((uint32) d[4] << 8) | d[5];
	if (d[0] == 'O' && n == ORE_HEADER + ORE_FULL + ORE_MAC)
	{
		p->left = d + ORE_HEADER;
		p->right = d + ORE_HEADER + ORE_LEFT;
	}
	else if (d[0] == 'Q' && n == ORE_HEADER + ORE_LEFT)
	{
		p->right = NULL;
		p->left = d + ORE_HEADER;
	}
	else
		ore_bad("value or bound", n);
}

/* ore_validate checks what input may hold: a value or a bound of the
 * right form (every bit pattern of a right part is one an encryption can
 * write). */
static void
ore_validate(bytea *b)
{
	OreParts	p;

	ore_parse(b, &p);
}

/* H: the low bit of AES-128 under the nonce of the PRF value. */
static int
ore_hash(const unsigned char *prf, const unsigned char *nonce)
{
	AES_KEY		k;
	unsigned char out[16];

	if (AES_set_encrypt_key(nonce, 128, &k) != 0)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("AES key schedule failed")));
	AES_encrypt(prf, out, &k);
	return out[15] & 1;
}

/* Lewi-Wu's comparison at block i of left against right, where the
 * plaintexts differ: 1 if left's is greater, -1 if less. */
static int
ore_compare_at(int i, const unsigned char *left, const unsigned char *right)
{
	const unsigned char *blk = left + i * ORE_LEFT_BLOCK;
	int			slot = blk[16];
	int			bit = (right[ORE_NONCE + i * ORE_ROW + slot / 8] >> (slot % 8)) & 1;

	return (bit ^ ore_hash(blk, right)) ? 1 : -1;
}

#define ORE_MEMO_SLOTS 256
#define ORE_LAST(p) ((p)->left + ORE_LEFT - ORE_LEFT_BLOCK)

/* A memo entry: a pair's answer, keyed by the whole left part of each
 * side and whether each side was a stored value or a query bound. */
typedef struct
{
	bool		used;
	bool		x_value;
	bool		y_value;
	int8		result;
	uint32		key_id;
	unsigned char x_left[ORE_LEFT];
	unsigned char y_left[ORE_LEFT];
} OreMemoEntry;

/* ore_memo_slot: the slot of a pair in its call site's memo (allocated in
 * the call site's memory context on first use), or NULL without one. */
static OreMemoEntry *
ore_memo_slot(FmgrInfo *flinfo, const OreParts *x, const OreParts *y)
{
	OreMemoEntry *m;

	if (flinfo == NULL)
		return NULL;
	if (flinfo->fn_extra == NULL)
		flinfo->fn_extra = MemoryContextAllocZero(flinfo->fn_mcxt, ORE_MEMO_SLOTS * sizeof(OreMemoEntry));
	m = (OreMemoEntry *) flinfo->fn_extra;
	return &m[(ORE_LAST(x)[0] ^ ORE_LAST(y)[1]) % ORE_MEMO_SLOTS];
}

static bool
ore_memo_holds(const OreMemoEntry *m, const OreParts *x, const OreParts *y)
{
	return m->used && m->key_id == x->key_id &&
		m->x_value == (x->right != NULL) && m->y_value == (y->right != NULL) &&
		memcmp(m->x_left, x->left, ORE_LEFT) == 0 &&
		memcmp(m->y_left, y->left, ORE_LEFT) == 0;
}

static void
ore_inconsistent(const char *hint)
{
	ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
					errmsg("inconsistent ore values: a forged or damaged ciphertext"),
					errhint("%s", hint)));
}

static int
ore_compare(bytea *a, bytea *b, FmgrInfo *flinfo)
{
	OreParts	x,
				y;
	OreMemoEntry *memo;
	int			i,
				r = 0;

	ore_parse(a, &x);
	ore_parse(b, &y);
	if (x.key_id != y.key_id)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("ore values under different keys (%u, %u)", x.key_id, y.key_id),
						errhint("Prepare the table again after rotating the column encryption keyset.")));
	/*
	 * The last block is the PRF of the whole plaintext: equal last blocks
	 * are equal plaintexts, whose left parts are equal throughout.
	 */
	if (memcmp(ORE_LAST(&x), ORE_LAST(&y), ORE_LEFT_BLOCK) == 0)
	{
		if (memcmp(x.left, y.left, ORE_LEFT - ORE_LEFT_BLOCK) != 0)
			ore_inconsistent("Equal last blocks with different left parts.");
		return 0;
	}
	memo = ore_memo_slot(flinfo, &x, &y);
	if (memo != NULL && ore_memo_holds(memo, &x, &y))
		return memo->result;
	for (i = 0; i < ORE_BLOCKS - 1; i++)
		if (memcmp(x.left + i * ORE_LEFT_BLOCK, y.left + i * ORE_LEFT_BLOCK, ORE_LEFT_BLOCK) != 0)
			break;
	if (y.right != NULL)
	{
		r = ore_compare_at(i, x.left, y.right);
		if (x.right != NULL && -ore_compare_at(i, y.left, x.right) != r)
			r = 0;
	}
	else if (x.right != NULL)
		r = -ore_compare_at(i, y.left, x.right);
	else
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("two ore query bounds cannot be compared")));
	if (r == 0)
		ore_inconsistent("The two directions of the comparison disagree.");
	if (memo != NULL)
	{
		memo->used = true;
		memo->key_id = x.key_id;
		memo->x_value = x.right != NULL;
		memo->y_value = y.right != NULL;
		memo->result = (int8) r;
		memcpy(memo->x_left, x.left, ORE_LEFT);
		memcpy(memo->y_left, y.left, ORE_LEFT);
	}
	return r;
}

#define ORE_FN(name, expr) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	bytea	   *a = PG_GETARG_BYTEA_PP(0); \
	bytea	   *b = PG_GETARG_BYTEA_PP(1); \
	int			c = ore_compare(a, b, fcinfo->flinfo); \
	PG_FREE_IF_COPY(a, 0); \
	PG_FREE_IF_COPY(b, 1); \
	expr; \
}

ORE_FN(ore_cmp, PG_RETURN_INT32(c))
ORE_FN(ore_lt, PG_RETURN_BOOL(c < 0))
ORE_FN(ore_le, PG_RETURN_BOOL(c <= 0))
ORE_FN(ore_eq, PG_RETURN_BOOL(c == 0))
ORE_FN(ore_ne, PG_RETURN_BOOL(c != 0))
ORE_FN(ore_ge, PG_RETURN_BOOL(c >= 0))
ORE_FN(ore_gt, PG_RETURN_BOOL(c > 0))

/* bytea's I/O under the ore type's own names (C functions are found by
 * OID in a hash table; see the SQL script). */
PG_FUNCTION_INFO_V1(ore_in);
Datum
ore_in(PG_FUNCTION_ARGS)
{
	Datum		d = byteain(fcinfo);

	ore_validate(DatumGetByteaPP(d));
	return d;
}

PG_FUNCTION_INFO_V1(ore_out);
Datum
ore_out(PG_FUNCTION_ARGS)
{
	return byteaout(fcinfo);
}

PG_FUNCTION_INFO_V1(ore_recv);
Datum
ore_recv(PG_FUNCTION_ARGS)
{
	Datum		d = bytearecv(fcinfo);

	ore_validate(DatumGetByteaPP(d));
	return d;
}

/* ore_is_value: a stored value, not a query bound (for CHECK). */
PG_FUNCTION_INFO_V1(ore_is_value);
Datum
ore_is_value(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	OreParts	p;

	ore_parse(b, &p);
	PG_RETURN_BOOL(p.right != NULL);
}

PG_FUNCTION_INFO_V1(ore_send);
Datum
ore_send(PG_FUNCTION_ARGS)
{
	return byteasend(fcinfo);
}
