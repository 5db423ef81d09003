/**
 * Notes and full-text search over them and over stored conversations: what the memory tools (memory_search,
 * note_save) need from a store. The contract lives here, below both: the tools consume it, the stores implement it.
 */

export interface NoteRecord {
  id: number;
  title: string;
  content: string;
  tags: string[];
  createdAt: string;
}

export interface MemoryHit {
  kind: "note" | "message";
  /** Note id or message id. */
  id: number;
  title: string | null;
  conversationId: string | null;
  role: string | null;
  snippet: string;
  createdAt: string;
}

export interface MemorySearchOptions {
  /** Best matches returned at most (default 5, at most 50). */
  limit?: number;
  /** Notes only, or messages only; both when absent. */
  kind?: "note" | "message";
  /**
   * Leave out the messages of this run: the request being answered is no memory of it, and a model shown its own
   * question back ("what is my bike lock code?") takes it for the answer.
   */
  excludeRun?: string;
  /**
   * Messages of these roles only ("user", "assistant"); notes are not affected. memory_search's default leaves the
   * model's own answers out: they are what a model made of a memory, not the memory, and a wrong one ("pliliz3390"
   * for a note's "plinth3390") would come back as if the person had said it.
   */
  roles?: readonly ("user" | "assistant")[];
}

export interface MemoryStore {
  saveNote(note: { title: string; content: string; tags?: string[] }): Promise<NoteRecord>;
  /** Full-text search over notes and the text of stored conversations, best matches first. */
  searchMemory(query: string, options?: MemorySearchOptions): Promise<MemoryHit[]>;
}
