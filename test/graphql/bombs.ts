/**
 * Documents whose expansion doubles at every level while their text grows by one line: the shapes
 * an attacker uses to make a validator or executor that follows spreads do 2^n work.
 */
export type BombShape = 'spreads' | 'inline' | 'fields';

export function fragmentBomb(levels: number, shape: BombShape): string {
  const body = (next: string): string => {
    switch (shape) {
      case 'spreads':
        return `...${next} ...${next}`;
      case 'inline':
        return `... on Query { ...${next} } ... on Query { ...${next} }`;
      case 'fields':
        return `a: health { ...H${next} } a: health { ...H${next} } ...${next} ...${next}`;
    }
  };
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ${body(`F${i + 1}`)} }`);
  const health = shape === 'fields' ? Array.from({ length: levels }, (_, i) => `fragment HF${i + 1} on Health { status }`) : [];
  return [`{ ...F0 }`, ...fragments, `fragment F${levels} on Query { __typename }`, ...health].join('\n');
}
