-- The ore type stores encbench's ORE values, format version 3 (and takes
-- its query bounds), checked on input; its btree operator class orders
-- them without any key.
\echo Use "CREATE EXTENSION encbench_ore" to load this file. \quit

CREATE TYPE ore;
-- The I/O functions are bytea's, wrapped in C: an internal-language alias
-- is looked up by name (a linear scan of every built-in) on each call.
CREATE FUNCTION ore_in(cstring) RETURNS ore AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_out(ore) RETURNS cstring AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_recv(internal) RETURNS ore AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_send(ore) RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ore (
  INPUT = ore_in, OUTPUT = ore_out, RECEIVE = ore_recv, SEND = ore_send,
  INTERNALLENGTH = VARIABLE, STORAGE = main, ALIGNMENT = int4
);
-- The raw bytes, for proofs that read what the server stores.
CREATE CAST (ore AS bytea) WITHOUT FUNCTION;

-- A stored value, not a query bound: columns of type ore CHECK it.
CREATE FUNCTION ore_is_value(ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION ore_cmp(ore, ore) RETURNS int4 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_lt(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_le(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_eq(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_ne(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_ge(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ore_gt(ore, ore) RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR < (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_lt, COMMUTATOR = >, NEGATOR = >=,
  RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_le, COMMUTATOR = >=, NEGATOR = >,
  RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_eq, COMMUTATOR = =, NEGATOR = <>,
  RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
CREATE OPERATOR <> (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_ne, COMMUTATOR = <>, NEGATOR = =,
  RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_ge, COMMUTATOR = <=, NEGATOR = <,
  RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = ore, RIGHTARG = ore, FUNCTION = ore_gt, COMMUTATOR = <, NEGATOR = <=,
  RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

CREATE OPERATOR CLASS ore_ops DEFAULT FOR TYPE ore USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ore_cmp(ore, ore);
