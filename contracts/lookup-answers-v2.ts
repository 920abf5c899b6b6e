// What the 2.0.0 lookups answer (oss-osn-2.0.0.md §4), independent of SOAP or JSON: the MongoDB
// lookups produce these from the read models; the 2.0.0 SOAP and JSON renderers write them. Values
// are as stored: fitting them to the XSDs (cuts, countries, defaults; §4.4) is the renderers' job,
// so that every cut is counted where it is made.
import type { Address, Contact, PackageItem, ProductLine, Quantity } from './erp-event-schema.js';
import type { IssueCategory, IssueStatus, PreProductionProof, StatusWord } from './v2-vocabulary.js';

export type { Quantity };

/** An issue as answered (the read model keeps a few bookkeeping fields beside these). */
export interface IssueView {
  issueId: string;
  issueStatus: IssueStatus;
  issueCategory: IssueCategory;
  issueName?: string;
  urgentResponseRequired: boolean;
  issueDescription?: string;
  responseRequiredBy?: Date;
  issueResolutionURL?: string;
  productId?: string;
  partId?: string;
}

/** A contact of a sales order as the ERP gave it (OrderContactsRecorded), kept and answered so. */
export type ContactView = Contact;

/** A product line as the ERP gave it, its status the line's, else the detail's. */
export type ProductView = Omit<ProductLine, 'status'> & { status: StatusWord };

export interface OrderStatusDetailV2View {
  salesOrderNumber: string;
  status: StatusWord;
  /** The open derived hold's category, else the first open ERP issue's, whatever issues are asked for. */
  issueCategory?: IssueCategory;
  /** `YYYY-MM-DD` as the ERP wrote it. */
  expectedShipDate?: string;
  expectedDeliveryDate?: string;
  additionalExplanation?: string;
  qualityProofURL?: string;
  contacts: ContactView[];
  /** Present when returnProductDetail asked for them. */
  products?: ProductView[];
  /** As returnIssueDetailType asked: none, the open ones, or all (open derived holds hidden behind an open ERP issue of their category). */
  issues: IssueView[];
  validTimestamp: Date;
}

export interface OrderStatusV2View {
  purchaseOrderNumber: string;
  details: OrderStatusDetailV2View[];
}

/** An address as stored (contract v1 fields and the v2 additions), before fitting. */
export type AddressV2View = Address;

/** A package's item as stored (contract v1 fields and v2's uom). */
export type ItemV2View = PackageItem;

export interface PackageV2View {
  id: number;
  trackingNumber: string;
  shipmentDate: Date;
  carrier?: string;
  carrierService?: string;
  shipmentMethod?: string;
  shippingAccount?: string;
  shipmentTerms?: string;
  dimUOM?: string;
  length?: number;
  width?: number;
  height?: number;
  weightUOM?: string;
  weight?: number;
  preProductionProof?: PreProductionProof;
  items?: ItemV2View[];
  /** Contract v2: what is on the label (1 to 4); absent when none. Shown by 2.1.0 and the JSON v2 twin, not by 2.0.0's SOAP answer. */
  shipReferences?: string[];
}

/** A location with at least one package: 2.0.0's PackageArray needs one. */
export interface ShipmentV2View {
  id: number;
  complete: boolean;
  customerPickup?: boolean;
  shipFromAddress: AddressV2View;
  shipToAddress: AddressV2View;
  /** As stored: v1's `None` becomes `Other` when rendered. */
  shipmentDestinationType?: string;
  packages: PackageV2View[];
}

export interface SalesOrderShipmentV2View {
  salesOrderNumber: string;
  complete: boolean;
  shipments: ShipmentV2View[];
}

export interface ShipmentNotificationV2View {
  purchaseOrderNumber: string;
  complete: boolean;
  salesOrders: SalesOrderShipmentV2View[];
}

/** A list answer under the 5,000-purchase-order cap; `more` when more purchase orders matched than it holds. */
export interface CappedAnswer<T> {
  orders: T[];
  more: boolean;
}

/**
 * A CappedAnswer read a batch of purchase orders at a time, in its order (an answer of thousands is
 * sent as it is read: docs/partners.md, "Large answers"); `more` is known before the first batch.
 */
export interface CappedBatches<T> {
  more: boolean;
  batches: AsyncIterable<T[]>;
}
