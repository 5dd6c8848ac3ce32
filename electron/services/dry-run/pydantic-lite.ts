/**
 * The part of pydantic 2's lax validation that upstream's request models use, run as FastAPI runs it on a parsed
 * JSON body, so that a bad request gets the same 422 entries here as on the GPU server: error types, messages,
 * locations (a union member adds its tag to the location) and coercions ("true" → true, "5" → 5).
 */
import type { PyJson } from './py-format';

export type FieldType =
  | { kind: 'str' | 'int' | 'float' | 'bool' | 'any' }
  | { kind: 'nullable'; inner: FieldType }
  | { kind: 'list'; item: FieldType }
  | { kind: 'dict'; value: FieldType }
  | { kind: 'union'; members: Array<[tag: string, type: FieldType]> }
  | ModelType;

/** A field spec: [type] is required, [type, default] is optional. */
export type FieldSpec = [FieldType] | [FieldType, PyJson];
export interface ModelType {
  kind: 'model';
  name: string;
  fields: Record<string, FieldSpec>;
}

export const t = {
  str: { kind: 'str' } as FieldType,
  int: { kind: 'int' } as FieldType,
  float: { kind: 'float' } as FieldType,
  bool: { kind: 'bool' } as FieldType,
  any: { kind: 'any' } as FieldType,
  nullable: (inner: FieldType): FieldType => ({ kind: 'nullable', inner }),
  list: (item: FieldType): FieldType => ({ kind: 'list', item }),
  dict: (value: FieldType): FieldType => ({ kind: 'dict', value }),
  union: (members: Array<[string, FieldType]>): FieldType => ({ kind: 'union', members }),
  model: (name: string, fields: Record<string, FieldSpec>): ModelType => ({ kind: 'model', name, fields }),
};

export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

export type Validated<T> = { ok: true; value: T } | { ok: false, errors: ValidationIssue[] };

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

const isDict = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Validates input against a type; the value has the model's defaults filled in. */
export function validate<T = Record<string, unknown>>(type: FieldType, input: unknown, loc: Array<string | number> = []): Validated<T> {
  const errors: ValidationIssue[] = [];
  const value = check(type, input, loc, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as T };
}

function check(type: FieldType, input: unknown, loc: Array<string | number>, errors: ValidationIssue[]): unknown {
  const fail = (kind: string, msg: string): undefined => {
    errors.push({ type: kind, loc, msg, input });
    return undefined;
  };
  switch (type.kind) {
    case 'any':
      return input;
    case 'str':
      return typeof input === 'string' ? input : fail('string_type', 'Input should be a valid string');
    case 'int':
      return toInt(input, fail);
    case 'float':
      return toFloat(input, fail);
    case 'bool':
      return toBool(input, fail);
    case 'nullable':
      return input === null ? null : check(type.inner, input, loc, errors);
    case 'list':
      if (!Array.isArray(input)) return fail('list_type', 'Input should be a valid list');
      return input.map((item, i) => check(type.item, item, [...loc, i], errors));
    case 'dict': {
      if (!isDict(input)) return fail('dict_type', 'Input should be a valid dictionary');
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(input)) out[key] = check(type.value, item, [...loc, key], errors);
      return out;
    }
    case 'union': {
      // pydantic's smart union: the first member that validates wins; otherwise every member's errors.
      const memberErrors: ValidationIssue[] = [];
      for (const [tag, member] of type.members) {
        const result = validate(member, input, [...loc, tag]);
        if (result.ok) return result.value;
        memberErrors.push(...result.errors);
      }
      errors.push(...memberErrors);
      return undefined;
    }
    case 'model':
      return toModel(type, input, loc, errors);
  }
}

function toModel(type: ModelType, input: unknown, loc: Array<string | number>, errors: ValidationIssue[]): unknown {
  if (!isDict(input)) {
    // FastAPI validates with from_attributes: a str, list, number or raw bytes all get this one error.
    errors.push({ type: 'model_attributes_type', loc, msg: 'Input should be a valid dictionary or object to extract fields from', input });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(type.fields)) {
    if (!(name in input)) {
      if (spec.length === 1) errors.push({ type: 'missing', loc: [...loc, name], msg: 'Field required', input });
      else out[name] = structuredClone(spec[1]);
      continue;
    }
    out[name] = check(spec[0], input[name], [...loc, name], errors);
  }
  return out;
}

type Fail = (kind: string, msg: string) => undefined;

function toInt(input: unknown, fail: Fail): number | undefined {
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input === 'string') {
    const text = input.trim().replace(/_/g, '');
    if (!/^[+-]?\d+$/.test(text)) return fail('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
    return Number(text);
  }
  if (typeof input !== 'number') return fail('int_type', 'Input should be a valid integer');
  if (!Number.isFinite(input)) return fail('finite_number', 'Input should be a finite number');
  if (!Number.isInteger(input)) return fail('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
  return input;
}

function toFloat(input: unknown, fail: Fail): number | undefined {
  if (typeof input === 'number') return input;
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input !== 'string') return fail('float_type', 'Input should be a valid number');
  const text = input.trim().toLowerCase();
  if (DECIMAL.test(text)) return Number(text);
  if (['inf', '+inf', 'infinity', '+infinity'].includes(text)) return Number.POSITIVE_INFINITY;
  if (['-inf', '-infinity'].includes(text)) return Number.NEGATIVE_INFINITY;
  if (['nan', '+nan', '-nan'].includes(text)) return Number.NaN;
  return fail('float_parsing', 'Input should be a valid number, unable to parse string as a number');
}

function toBool(input: unknown, fail: Fail): boolean | undefined {
  if (typeof input === 'boolean') return input;
  if (input === 0 || input === 1) return input === 1;
  if (typeof input === 'string') {
    const word = input.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  if (typeof input === 'string' || typeof input === 'number') return fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
  return fail('bool_type', 'Input should be a valid boolean');
}
