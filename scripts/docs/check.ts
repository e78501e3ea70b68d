/**
 * The API reference's check (`npm run docs:check`, and `test/ApiDocsLive.test.ts` in `npm test`):
 *
 * - every declaration the public entry points reach, written in the library's own sources, has a
 *   TSDoc comment: exports, namespaces, interface and class members, the fields of options objects
 *   (`{ readonly script: … }` in a parameter's type). Fields of a `Schema.Struct({ … })` are not
 *   asked for one: the schema's comment describes the wire shape;
 * - every ```ts block of a TSDoc comment in `src/` (under `@example` or anywhere else in the
 *   comment) type-checks with the project's TypeScript, as a module of its own, with the package's
 *   entries (`effect-claude-code`, `effect-claude-code/node`, `effect-claude-code/testing`) mapped
 *   to `src/`: each block is a whole program a user could paste, imports included.
 *
 * The entry points are `typedoc.json`'s, next to this file (one line each).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  Application,
  Converter,
  type DeclarationReflection,
  type Reflection,
  ReflectionKind,
  ReflectionType,
  TSConfigReader,
  TypeDocReader
} from "typedoc"
import ts from "typescript"

/** The repository's root. */
export const root = Path.resolve(import.meta.dirname, "..", "..")

/** This folder's TypeDoc options: entry points, tsconfig, output. */
export const typedocOptions = Path.join(import.meta.dirname, "typedoc.json")

/** A declaration without documentation: its full name and where it is written. */
export interface Gap {
  /** The reflection's full name, as the reference shows it (`index.Claude.Session.send`). */
  readonly name: string
  /** `src/File.ts:line`. */
  readonly where: string
}

/** Declarations a person writes (and so documents); object literal properties are not among them. */
const written = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.SourceFile,
  ts.SyntaxKind.ModuleDeclaration,
  ts.SyntaxKind.NamespaceExport,
  ts.SyntaxKind.ExportSpecifier,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.EnumMember,
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor
])

/** A literal in a type computation (`Extract<A, { readonly type: T }>`) is not a shape to document. */
const inTypeArgument = (declaration: ts.Declaration): boolean =>
  declaration.parent !== undefined && ts.isTypeLiteralNode(declaration.parent) &&
  ts.isTypeReferenceNode(declaration.parent.parent)

const isOurs = (fileName: string, base: string): boolean =>
  !fileName.includes("/node_modules/") && !fileName.endsWith(".d.ts") &&
  !Path.relative(base, fileName).startsWith("..")

const documented = (reflection: DeclarationReflection): boolean => {
  // An override (`get message()` of an error) keeps the contract its parent documents.
  if (reflection.hasComment() || reflection.overwrites !== undefined) return true
  const signatures = [
    ...(reflection.signatures ?? []),
    ...(reflection.getSignature ? [reflection.getSignature] : []),
    ...(reflection.type instanceof ReflectionType ? reflection.type.declaration.signatures ?? [] : [])
  ]
  return signatures.some((signature) => signature.hasComment())
}

/** A member of a type parameter's constraint (`<A extends { readonly type: string }>`). */
const underTypeParameter = (reflection: Reflection): boolean => {
  for (let r: Reflection | undefined = reflection.parent; r !== undefined; r = r.parent) {
    if (r.kindOf(ReflectionKind.TypeParameter)) return true
  }
  return false
}

/**
 * Converts the entry points with TypeDoc (nothing is rendered) and lists the declarations they
 * reach, written under `base`, that have no documentation.
 */
export const findGaps = async (options: {
  /** A TypeDoc options file (`typedoc.json`); or the two below. */
  readonly optionsFile?: string
  /** Entry points, when there is no options file. */
  readonly entryPoints?: ReadonlyArray<string>
  /** The tsconfig, when there is no options file. */
  readonly tsconfig?: string
  /** Only declarations in files under this folder are checked (default: the repository's `src/`). */
  readonly base?: string
}): Promise<ReadonlyArray<Gap>> => {
  const base = options.base ?? Path.join(root, "src")
  const app = await Application.bootstrap(
    {
      ...(options.optionsFile === undefined ? {} : { options: options.optionsFile }),
      ...(options.entryPoints === undefined ? {} : { entryPoints: [...options.entryPoints] }),
      ...(options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }),
      logLevel: "Error",
      validation: { notExported: false, notDocumented: false, invalidLink: false }
    },
    [new TypeDocReader(), new TSConfigReader()]
  )
  const declarations = new Map<DeclarationReflection, ReadonlyArray<ts.Declaration>>()
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    const symbol = context.getSymbolFromReflection(reflection)
    const mine = (symbol?.declarations ?? []).filter((declaration) =>
      written.has(declaration.kind) && !inTypeArgument(declaration) && isOurs(declaration.getSourceFile().fileName, base)
    )
    if (mine.length > 0) declarations.set(reflection, mine)
  })
  const project = await app.convert()
  if (project === undefined) throw new Error("TypeDoc could not convert the entry points (see its errors above)")
  const gaps = new Map<string, Gap>()
  for (const [reflection, mine] of declarations) {
    if (project.getReflectionById(reflection.id) !== reflection || documented(reflection)) continue
    // A re-export (`export { X } from …`) shows the original, which is checked where it is written.
    if (reflection.kindOf(ReflectionKind.Reference) || underTypeParameter(reflection)) continue
    const first = mine[0]!
    const source = first.getSourceFile()
    const line = source.getLineAndCharacterOfPosition(first.getStart(source)).line + 1
    const where = `${Path.relative(root, source.fileName)}:${line}`
    // A type literal shown in several places is one declaration to document.
    if (!gaps.has(where)) gaps.set(where, { name: reflection.getFullName(), where })
  }
  return [...gaps.values()].sort((a, b) => a.where.localeCompare(b.where, "en", { numeric: true }))
}

/** A ```ts block of a TSDoc comment (under `@example` or not). */
export interface Example {
  /** `src/File.ts:line` of the block's first line of code. */
  readonly where: string
  /** The code. */
  readonly code: string
}

/** Every ```ts block in the TSDoc comments of these files, whatever tag (if any) it is under. */
export const examplesOf = (files: ReadonlyArray<string>): ReadonlyArray<Example> => {
  const examples: Array<Example> = []
  for (const file of files) {
    const text = Fs.readFileSync(file, "utf8")
    for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
      const startLine = text.slice(0, comment.index).split("\n").length
      const lines = comment[0].split("\n").map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ""))
      let block: Array<string> | undefined
      let blockLine = 0
      lines.forEach((line, i) => {
        if (block !== undefined) {
          if (line.trim().startsWith("```")) {
            examples.push({ where: `${Path.relative(root, file)}:${blockLine}`, code: block.join("\n") + "\n" })
            block = undefined
          } else block.push(line)
        } else if (/^```(ts|typescript)\b/.test(line.trim())) {
          block = []
          blockLine = startLine + i + 1
        }
      })
    }
  }
  return examples
}

/** The `.ts` files under a folder. */
export const sourceFiles = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => Path.join(dir, file))
    .sort()

/**
 * Type-checks examples with the project's `tsc` in `workDir` (emptied first): one module per
 * example, the package's entries (`effect-claude-code`, `effect-claude-code/node`,
 * `effect-claude-code/testing`, `/sql`, `/pg`) mapped to `src/`; no other subpath resolves, as for a user.
 * Returns tsc's errors, pointed back at the examples' lines; empty when all pass.
 */
export const checkExamples = (examples: ReadonlyArray<Example>, workDir: string): ReadonlyArray<string> => {
  if (examples.length === 0) return []
  Fs.rmSync(workDir, { recursive: true, force: true })
  Fs.mkdirSync(workDir, { recursive: true })
  const src = Path.relative(workDir, Path.join(root, "src")).split(Path.sep).join("/")
  const names = examples.map((_, i) => `example${i}.ts`)
  examples.forEach((example, i) =>
    Fs.writeFileSync(Path.join(workDir, names[i]!), `// ${example.where}\nexport {}\n${example.code}`)
  )
  const tsconfig = {
    extends: Path.relative(workDir, Path.join(root, "tsconfig.json")).split(Path.sep).join("/"),
    compilerOptions: {
      noEmit: true,
      noUnusedLocals: false,
      // The types of `tsconfig.json` (`node`), found from a work dir outside the repository too.
      typeRoots: [Path.join(root, "node_modules", "@types")],
      paths: {
        "effect-claude-code": [`${src}/index.ts`],
        "effect-claude-code/node": [`${src}/node.ts`],
        "effect-claude-code/testing": [`${src}/testing/index.ts`],
        "effect-claude-code/sql": [`${src}/sql.ts`],
        "effect-claude-code/pg": [`${src}/pg.ts`]
      }
    },
    include: names
  }
  Fs.writeFileSync(Path.join(workDir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
  const tsc = Path.join(root, "node_modules", "typescript", "bin", "tsc")
  const result = ChildProcess.spawnSync(process.execPath, [tsc, "-p", workDir, "--pretty", "false"], {
    cwd: workDir,
    encoding: "utf8",
    timeout: 120_000
  })
  if (result.status === 0) return []
  const output = `${result.stdout}${result.stderr}`.trim()
  return output.split("\n").filter((line) => line.trim() !== "").map((line) =>
    line.replace(/^(?:.*[\\/])?example(\d+)\.ts\((\d+),(\d+)\)/, (_, index: string, row: string, column: string) => {
      const example = examples[Number(index)]!
      const [file, first] = example.where.split(/:(?=\d+$)/)
      return `${file}:${Number(first) + Number(row) - 3}:${column} (@example)`
    })
  )
}

const main = async (): Promise<number> => {
  const started = Date.now()
  const gaps = await findGaps({ optionsFile: typedocOptions })
  for (const gap of gaps) console.error(`${gap.where}: ${gap.name} has no documentation`)
  const examples = examplesOf(sourceFiles(Path.join(root, "src")))
  const errors = checkExamples(examples, Path.join(root, ".tmp", "api-examples"))
  for (const error of errors) console.error(error)
  console.log(
    `docs:check: ${gaps.length} undocumented, ${examples.length} examples (${errors.length} errors), ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s`
  )
  return gaps.length === 0 && errors.length === 0 ? 0 : 1
}

if (import.meta.main) process.exitCode = await main()
