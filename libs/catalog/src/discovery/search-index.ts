import { synonymsOf, tokenize } from './tokenize';

/** One searchable document: a tool's text by field. */
export interface IndexDocument {
  name: string;
  title?: string;
  description?: string;
  /** Parameter names (top-level properties of the input schema). */
  params: readonly string[];
  /** The server the tool comes from (its id), so "github …" finds GitHub's tools. */
  server?: string;
}

/** Field weights of BM25F: a word in a tool's name says more about it than one in its description. */
const FIELD_WEIGHTS = { name: 3, title: 2, description: 1, params: 0.7, server: 1.5 } as const;
type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];
const K1 = 1.2;
const B = 0.75;
/** Weight of a synonym's match relative to the query word itself. */
const SYNONYM_WEIGHT = 0.35;
/** Extra score of a tool whose whole name is the query (a client that already knows the name). */
const EXACT_NAME_BONUS = 100;

/** The postings of one term: documents and their precomputed BM25F weights, aligned. */
interface Posting {
  readonly docs: Int32Array;
  readonly weights: Float64Array;
}

/** One ranked hit: the document's position and its score. */
export interface SearchHit {
  readonly doc: number;
  readonly score: number;
}

/**
 * A BM25F index over tool documents, built once per published catalog: every weight is
 * precomputed, so a query is a few posting-list walks and a top-k. Built only from the
 * documents' content and order, it is the same on every replica that compiles the same catalog.
 */
export class SearchIndex {
  private constructor(
    private readonly postings: ReadonlyMap<string, Posting>,
    private readonly names: ReadonlyMap<string, number>,
    readonly size: number,
  ) {}

  static build(docs: readonly IndexDocument[]): SearchIndex {
    const fieldTokens = docs.map((d) => fieldsOf(d));
    const avgLength = {} as Record<Field, number>;
    for (const f of FIELDS) avgLength[f] = Math.max(1, fieldTokens.reduce((n, t) => n + t[f].length, 0) / Math.max(1, docs.length));
    // Per term: document → pseudo term frequency (BM25F: length-normalised, field-weighted counts summed).
    const tf = new Map<string, Map<number, number>>();
    fieldTokens.forEach((fields, doc) => {
      for (const f of FIELDS) {
        const tokens = fields[f];
        const norm = FIELD_WEIGHTS[f] / (1 - B + (B * tokens.length) / avgLength[f]);
        for (const t of tokens) {
          let byDoc = tf.get(t);
          if (!byDoc) tf.set(t, (byDoc = new Map()));
          byDoc.set(doc, (byDoc.get(doc) ?? 0) + norm);
        }
      }
    });
    const postings = new Map<string, Posting>();
    for (const [term, byDoc] of tf) {
      const idf = Math.log(1 + (docs.length - byDoc.size + 0.5) / (byDoc.size + 0.5));
      const entries = [...byDoc].sort((a, b) => a[0] - b[0]);
      const posting = { docs: new Int32Array(entries.length), weights: new Float64Array(entries.length) };
      entries.forEach(([doc, f], i) => {
        posting.docs[i] = doc;
        posting.weights[i] = (idf * f * (K1 + 1)) / (K1 + f);
      });
      postings.set(term, posting);
    }
    const names = new Map<string, number>();
    docs.forEach((d, i) => names.set(d.name.toLowerCase(), i));
    return new SearchIndex(postings, names, docs.length);
  }

  /**
   * The `limit` best documents for a query among those `allowed` (by position), best first;
   * ties go to the earlier document, so every replica answers alike.
   */
  search(query: string, limit: number, allowed?: (doc: number) => boolean): SearchHit[] {
    const terms = queryTerms(query);
    const scores = new Float64Array(this.size);
    const touched: number[] = [];
    for (const [term, weight] of terms) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i] as number;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] += weight * (posting.weights[i] as number);
      }
    }
    const exact = this.names.get(query.trim().toLowerCase());
    if (exact !== undefined) {
      if (scores[exact] === 0) touched.push(exact);
      scores[exact] += EXACT_NAME_BONUS;
    }
    const hits: SearchHit[] = [];
    for (const doc of touched) if (!allowed || allowed(doc)) hits.push({ doc, score: scores[doc] as number });
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }
}

function fieldsOf(d: IndexDocument): Record<Field, string[]> {
  return {
    name: tokenize(d.name),
    title: d.title ? tokenize(d.title) : [],
    description: d.description ? tokenize(d.description) : [],
    params: d.params.flatMap((p) => tokenize(p)),
    server: d.server ? tokenize(d.server) : [],
  };
}

/** Query stems with their weights: each word once at 1, its synonyms (not themselves query words) at {@link SYNONYM_WEIGHT}. */
function queryTerms(query: string): Map<string, number> {
  const terms = new Map<string, number>();
  const words = tokenize(query);
  for (const w of words) terms.set(w, 1);
  for (const w of words) {
    for (const s of synonymsOf(w)) if (!terms.has(s)) terms.set(s, SYNONYM_WEIGHT);
  }
  return terms;
}
