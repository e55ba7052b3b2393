import { expansionsOf, tokenize, tokenizeQuery } from './tokenize';

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
/** Weight of an index term that a query word is the beginning of ("remind" → "reminder"). */
const PREFIX_WEIGHT = 0.5;
/** Shortest query word matched as a prefix, and most terms one word reaches that way. */
const MIN_PREFIX = 4;
const MAX_PREFIX_TERMS = 8;
/** Query words counted for coordination (one bit each). */
const MAX_QUERY_WORDS = 31;
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
    /** Every indexed term, sorted (prefix lookups). */
    private readonly terms: readonly string[],
    readonly size: number,
  ) {
    this.scores = new Float64Array(size);
    this.reached = new Uint32Array(size);
  }

  private readonly scores: Float64Array;
  private readonly reached: Uint32Array;

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
    return new SearchIndex(postings, names, [...postings.keys()].sort(), docs.length);
  }

  /**
   * The `limit` best documents for a query among those `allowed` (by position), best first;
   * ties go to the earlier document, so every replica answers alike.
   */
  search(query: string, limit: number, allowed?: (doc: number) => boolean): SearchHit[] {
    const { terms, words } = this.queryTerms(query);
    // Scratch arrays kept by the index (a search runs to completion synchronously), zeroed again below.
    const scores = this.scores;
    // Which query words reached each document (a bit per word): scores are scaled by the share reached.
    const reached = this.reached;
    const touched: number[] = [];
    for (const [term, { weight, word }] of terms) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i] as number;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] += weight * (posting.weights[i] as number);
        reached[doc] = (reached[doc] as number) | word;
      }
    }
    const exact = this.names.get(query.trim().toLowerCase());
    if (exact !== undefined) {
      if (scores[exact] === 0) touched.push(exact);
      scores[exact] += EXACT_NAME_BONUS;
    }
    const hits: SearchHit[] = [];
    for (const doc of touched) {
      if (allowed && !allowed(doc)) continue;
      const coord = words === 0 ? 1 : bitCount(reached[doc] as number) / words;
      hits.push({ doc, score: (scores[doc] as number) * coord });
    }
    for (const doc of touched) {
      scores[doc] = 0;
      reached[doc] = 0;
    }
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  /**
   * Query stems with their weights and the query word (as a bit) each comes from: a word at 1,
   * index terms it begins at {@link PREFIX_WEIGHT}, its synonyms and related terms lower. `words`
   * counts the query words that reach any indexed term (at most {@link MAX_QUERY_WORDS}).
   */
  private queryTerms(query: string): { terms: Map<string, { weight: number; word: number }>; words: number } {
    const terms = new Map<string, { weight: number; word: number }>();
    const distinct = [...new Set(tokenizeQuery(query))].slice(0, MAX_QUERY_WORDS);
    let words = 0;
    distinct.forEach((w, i) => {
      const bit = 1 << i;
      let reaches = false;
      const raise = (term: string, weight: number) => {
        if (!this.postings.has(term)) return;
        reaches = true;
        const known = terms.get(term);
        terms.set(term, { weight: Math.max(known?.weight ?? 0, weight), word: (known?.word ?? 0) | bit });
      };
      raise(w, 1);
      for (const t of this.startingWith(w)) raise(t, PREFIX_WEIGHT);
      for (const [t, weight] of expansionsOf(w)) raise(t, weight);
      if (reaches) words++;
    });
    return { terms, words };
  }

  /** Indexed terms that begin with `word` (longer than it), at most {@link MAX_PREFIX_TERMS}. */
  private startingWith(word: string): string[] {
    if (word.length < MIN_PREFIX) return [];
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.terms[mid] as string) < word) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < this.terms.length && out.length < MAX_PREFIX_TERMS; i++) {
      const t = this.terms[i] as string;
      if (!t.startsWith(word)) break;
      if (t !== word) out.push(t);
    }
    return out;
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

function bitCount(n: number): number {
  let v = n - ((n >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
