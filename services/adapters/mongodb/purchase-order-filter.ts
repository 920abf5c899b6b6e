/** A filter for the sales orders of these purchase orders (and of other combinations of their clients and numbers, to drop). */
export function ofPurchaseOrders(groups: { clientId: string; purchaseOrderNumber: string }[]) {
  return {
    clientId: { $in: [...new Set(groups.map((g) => g.clientId))] },
    purchaseOrderNumber: { $in: [...new Set(groups.map((g) => g.purchaseOrderNumber))] },
  };
}

