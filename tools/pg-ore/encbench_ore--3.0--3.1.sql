-- 3.1 adds the ore_det type: encbench's ORE values written bound to their
-- column only (not to a row), so equal plaintexts have equal bytes. Its
-- btree operator class declares that (equalimage), which lets PostgreSQL
-- deduplicate an index on it: one posting list per distinct value. The
-- server-side code is ore's; only the promise about bytes differs, and it
-- is the writer's (encbench writes value-bound ciphertexts only there).
\echo Use "ALTER EXTENSION encbench_ore UPDATE TO '3.1'" to load this file. \quit

CREATE TYPE ore_det;
CREATE FUNCTION ore_det_in(cstring) RETURNS ore_det AS 'MODULE_PATHNAME', 'ore_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_det_out(ore_det) RETURNS cstring AS 'MODULE_PATHNAME', 'ore_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_det_recv(internal) RETURNS ore_det AS 'MODULE_PATHNAME', 'ore_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_det_send(ore_det) RETURNS bytea AS 'MODULE_PATHNAME', 'ore_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ore_det (
  INPUT = ore_det_in, OUTPUT = ore_det_out, RECEIVE = ore_det_recv, SEND = ore_det_send,
  INTERNALLENGTH = VARIABLE, STORAGE = main, ALIGNMENT = int4
);
CREATE CAST (ore_det AS bytea) WITHOUT FUNCTION;

CREATE FUNCTION ore_is_value(ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_is_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION ore_cmp(ore_det, ore_det) RETURNS int4 AS 'MODULE_PATHNAME', 'ore_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_lt(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_le(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_eq(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_ne(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_ge(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_gt(ore_det, ore_det) RETURNS bool AS 'MODULE_PATHNAME', 'ore_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR < (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_lt, COMMUTATOR = >, NEGATOR = >=,
  RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_le, COMMUTATOR = >=, NEGATOR = >,
  RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_eq, COMMUTATOR = =, NEGATOR = <>,
  RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
CREATE OPERATOR <> (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_ne, COMMUTATOR = <>, NEGATOR = =,
  RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_ge, COMMUTATOR = <=, NEGATOR = <,
  RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = ore_det, RIGHTARG = ore_det, FUNCTION = ore_gt, COMMUTATOR = <, NEGATOR = <=,
  RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

-- FUNCTION 4: equal values are equal bytes, so btree may deduplicate.
CREATE OPERATOR CLASS ore_det_ops DEFAULT FOR TYPE ore_det USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ore_cmp(ore_det, ore_det),
  FUNCTION 4 btequalimage(oid);
