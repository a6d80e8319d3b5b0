/** One ECB publication day: the euro reference rates of that day. */
export interface Publication {
  /** The publication day, YYYY-MM-DD. */
  readonly date: string;
  /** Currency code → rate string exactly as published (one euro in that currency); EUR is not included. */
  readonly rates: Readonly<Record<string, string>>;
}
