/*
 * encbench_ore: the server side of encbench's order-revealing encryption
 * (Lewi-Wu block ORE, see internal/encryption/ore). A stored value (format
 * version 3, 414 bytes) is 'O', version, key id (4 bytes), left part (8
 * blocks of 16-byte PRF value + permuted byte), 16-byte nonce, then the
 * right part's 8 x 256 bits. A query bound is 'Q', version, key id and a
 * left part only. Comparing needs no key: the first block whose left parts
 * differ is where the plaintexts first differ, and one hash there (the low
 * bit of AES-128 keyed by the nonce, applied to the PRF value) unmasks
 * the answer bit.
 *
 * Input is checked (ore_in, ore_recv): the form and the lengths. A
 * comparison that a genuine pair never gives is an error, not an order:
 * two values that order each other differently in the two directions.
 * Columns keep bounds out with CHECK (ore_is_value(col)).
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
#define ORE_VERSION 3

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
	if (d[0] == 'O' && n == ORE_HEADER + ORE_FULL)
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

static int
ore_compare(bytea *a, bytea *b)
{
	OreParts	x,
				y;
	int			i,
				r = 0;

	ore_parse(a, &x);
	ore_parse(b, &y);
	if (x.key_id != y.key_id)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("ore values under different keys (%u, %u)", x.key_id, y.key_id),
						errhint("Prepare the table again after rotating the column encryption keyset.")));
	for (i = 0; i < ORE_BLOCKS; i++)
		if (memcmp(x.left + i * ORE_LEFT_BLOCK, y.left + i * ORE_LEFT_BLOCK, ORE_LEFT_BLOCK) != 0)
			break;
	if (i == ORE_BLOCKS)
		return 0;
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
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("inconsistent ore values: a forged or damaged ciphertext"),
						errhint("The two directions of the comparison disagree.")));
	return r;
}

#define ORE_FN(name, expr) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	bytea	   *a = PG_GETARG_BYTEA_PP(0); \
	bytea	   *b = PG_GETARG_BYTEA_PP(1); \
	int			c = ore_compare(a, b); \
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
