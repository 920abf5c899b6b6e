// The supplier's products with their parts, shared by the order lines and the packages' items.
export const products = [
  { id: 'PC61', parts: ['PC61-NAVY-L', 'PC61-BLK-XL', 'PC61-WHT-M'] },
  { id: 'MUG-11OZ', parts: ['MUG-11OZ-WHT', 'MUG-11OZ-RED'] },
  { id: 'TOTE-CNV', parts: ['TOTE-CNV-NAT', 'TOTE-CNV-BLK'] },
  { id: 'CAP-112', parts: ['CAP-112-CHAR', 'CAP-112-NVY'] },
  { id: 'PEN-WS', parts: ['PEN-WS-BLU', 'PEN-WS-BLK'] },
] as const;
