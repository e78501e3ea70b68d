/**
 * Small helpers for JSON values read without trusting their shape (CLI lines, transcripts,
 * stored entries), shared by the modules that read them.
 */

/** An object that is not null or an array. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The value when it is a string. */
export const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** JSON text of a value (indented by `indent` spaces when given); `String(value)` for what JSON cannot hold. */
export const stringify = (value: unknown, indent?: number): string => {
  try {
    return JSON.stringify(value, null, indent) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Why `value` cannot be written as JSON (a BigInt, a cycle, a `toJSON` that throws), if it
 * cannot: what `JSON.stringify` threw.
 */
export const jsonWriteError = (value: unknown): Error | undefined => {
  try {
    JSON.stringify(value)
    return undefined
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

/** Objects JSON writes as `{}` whatever they hold (it reads own enumerable properties only). */
const opaque: ReadonlyArray<new(...args: Array<never>) => object> = [Map, Set, WeakMap, WeakSet, RegExp, Error, Promise]

/**
 * Where and how `JSON.stringify` would not write `value` as given, if it would not: a Map, a Set
 * (`{}`), an object with `toJSON` (a Date: its string), a function or symbol (left out), a
 * non-finite number (`null`), a hole or `undefined` in an array (`null`), a typed array. A
 * property whose value is `undefined` is left out, as absent: no problem. For the answers of the
 * program's handlers, which the CLI acts on: a tool must never run with an input the handler did
 * not give. `jsonWriteError` covers what JSON cannot write at all (a BigInt, a cycle).
 */
export const jsonDataProblem = (value: unknown): string | undefined => {
  const visit = (v: unknown, path: string, inArray: boolean): string | undefined => {
    const at = path === "" ? "the answer" : path
    switch (typeof v) {
      case "string":
      case "boolean":
      case "bigint":
        return undefined
      case "number":
        return Number.isFinite(v) ? undefined : `${at} is ${v}, which JSON writes as null`
      case "undefined":
        return inArray ? `${at} is undefined, which JSON writes as null` : undefined
      case "function":
      case "symbol":
        return `${at} is a ${typeof v}, which JSON ${inArray ? "writes as null" : "leaves out"}`
    }
    if (v === null) return undefined
    const o = v as Record<string, unknown>
    if (typeof o.toJSON === "function") {
      return `${at} is ${describeObject(o)}, which JSON writes as what its toJSON gives`
    }
    if (ArrayBuffer.isView(o) || o instanceof ArrayBuffer) {
      return `${at} is ${describeObject(o)}, which JSON does not write as its bytes`
    }
    if (opaque.some((type) => o instanceof type)) return `${at} is ${describeObject(o)}, which JSON writes as {}`
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const problem = visit(o[i], `${path}[${i}]`, true)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    for (const key of Object.keys(o)) {
      const problem = visit(o[key], path === "" ? key : `${path}.${key}`, false)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  return visit(value, "", false)
}

/** "a Map", "a Date", "an object with toJSON". */
const describeObject = (o: object): string => {
  const name = (o.constructor as { readonly name?: unknown } | undefined)?.name
  return typeof name === "string" && name !== "Object" && name !== ""
    ? `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}`
    : "an object with toJSON"
}

/**
 * `schema` (a JSON Schema) with an object schema at its top, or undefined when it has none: a
 * structured output's schema goes to the model as a tool's input schema, which the Messages API
 * takes only as `"type": "object"`. A top-level `$ref` to one of its own definitions (`$defs`,
 * or draft-07's `definitions`: a Schema with an identifier, as a `Schema.Class`), through other
 * such refs, is replaced by that definition, the definitions kept for the refs inside it.
 */
export const objectSchemaOf = (schema: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined => {
  const { $ref: ref, ...rest } = schema
  let target: unknown = schema
  const followed = new Set<string>()
  for (let at = ref; typeof at === "string"; at = isRecord(target) ? target.$ref : undefined) {
    if (followed.has(at)) return undefined
    followed.add(at)
    target = definitionAt(schema, at)
  }
  if (!isRecord(target) || target.type !== "object") return undefined
  return target === schema ? schema : { ...rest, ...target }
}

/** The definition a local `$ref` (`#/$defs/…`, `#/definitions/…`) names in `schema`, if any. */
const definitionAt = (schema: Readonly<Record<string, unknown>>, ref: string): unknown => {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref)
  const defs = match === null ? undefined : schema[match[1]!]
  if (match === null || !isRecord(defs)) return undefined
  let name: string
  try {
    // A URI fragment (percent-encoded, as Effect writes an identifier with a space), then a JSON
    // Pointer token (`~1` is `/`, `~0` is `~`).
    name = decodeURIComponent(match[2]!).replaceAll("~1", "/").replaceAll("~0", "~")
  } catch {
    return undefined
  }
  return Object.hasOwn(defs, name) ? defs[name] : undefined
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its 8-4-4-4-12 hexadecimal form (either case), as the CLI's session and message ids. */
export const isUuid = (text: string): boolean => uuidPattern.test(text)
