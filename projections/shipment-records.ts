import type { Address, ErpEventOf, PackageItem } from '../contracts/erp-events.js';
import { compact } from './compact.js';
import type { PackageState } from './state.js';

// Event payloads copied into state records field by field: the state never shares objects with
// the event, and carries no property beyond those of its type. Contract v2's fields sit beside v1's
// (absent when the ERP did not send them), so the 1.0.0 answers read the same records.

export function toAddress(a: Address): Address {
  return compact({
    attentionTo: a.attentionTo,
    companyName: a.companyName,
    address1: a.address1,
    address2: a.address2,
    address3: a.address3,
    address4: a.address4,
    city: a.city,
    region: a.region,
    postalCode: a.postalCode,
    country: a.country,
    email: a.email,
    phone: a.phone,
    regionV2: a.regionV2,
  });
}

function toItem(i: PackageItem): PackageItem {
  return compact({
    supplierProductId: i.supplierProductId,
    supplierPartId: i.supplierPartId,
    distributorProductId: i.distributorProductId,
    distributorPartId: i.distributorPartId,
    purchaseOrderLineNumber: i.purchaseOrderLineNumber,
    quantity: i.quantity,
    uom: i.uom,
  });
}

export function toPackage(data: ErpEventOf<'PackageShipped'>['data']): PackageState {
  return compact({
    packageId: data.packageId,
    trackingNumber: data.trackingNumber,
    shipmentDate: new Date(data.shipmentDate),
    carrier: data.carrier,
    carrierService: data.carrierService,
    shipmentMethod: data.shipmentMethod,
    shippingAccount: data.shippingAccount,
    shipmentTerms: data.shipmentTerms,
    dimUOM: data.dimUOM,
    length: data.length,
    width: data.width,
    height: data.height,
    weightUOM: data.weightUOM,
    weight: data.weight,
    preProductionProof: data.preProductionProof,
    items: data.items?.map(toItem),
    // OSN 2.1.0's label references: the event's whole list, none kept for an empty one (docs/erp-events.md).
    shipReferences: data.shipReferences && data.shipReferences.length > 0 ? [...data.shipReferences] : undefined,
  });
}
